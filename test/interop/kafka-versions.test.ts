/**
 * librdkafka (kcat and confluent-kafka) against `brook serve --kafka-version`, under every release
 * brook answers as: produce with compression, read back, and transactions under read_committed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { FetchRequest, FetchResponse } from '../../src/protocol/messages/fetch.js';
import { KAFKA_VERSIONS } from '../../src/protocol/kafka-releases.js';
import { run, runPython } from '../helpers/external.js';
import { startServe } from '../helpers/serve-process.js';
import { batchesIn } from '../helpers/log.js';
import { fetchOf } from '../helpers/wire-fetch.js';
import { WireClient } from '../helpers/wire-client.js';
import { createTopic } from '../helpers/wire-produce.js';

/** A RecordBatch's attributes sit after base offset, length, leader epoch, magic and CRC; their low 3 bits name the codec. */
const codecOf = (batch: Buffer): number => batch.readInt16BE(21) & 7;
const GZIP = 1;

for (const version of KAFKA_VERSIONS) {
  test(`--kafka-version ${version}: kcat and confluent-kafka produce, consume and commit transactions`, { timeout: 180_000 }, async (t) => {
    const serve = await startServe(['--kafka-version', version]);
    t.after(async () => {
      await serve.stop();
      await rm(serve.dataDir, { recursive: true, force: true });
    });
    const client = await WireClient.connect(serve.port);
    t.after(() => client.close());
    await createTopic(client, 'kcat', 1);
    await createTopic(client, 'txn', 1);

    const lines = Array.from({ length: 100 }, (_, i) => `line-${i}`);
    const produced = await run(
      'kcat',
      ['-P', '-b', serve.bootstrap, '-t', 'kcat', '-p', '0', '-z', 'gzip', '-X', 'enable.idempotence=true'],
      lines.join('\n') + '\n',
    );
    assert.equal(produced.code, 0, produced.stderr);
    const consumed = await run('kcat', ['-C', '-b', serve.bootstrap, '-t', 'kcat', '-p', '0', '-o', 'beginning', '-e', '-f', '%s\\n']);
    assert.equal(consumed.code, 0, consumed.stderr);
    assert.deepEqual(consumed.stdout.trimEnd().split('\n'), lines);
    const fetched = await client.request(FetchRequest, FetchResponse, 12, fetchOf('kcat', [0]));
    const codecs = batchesIn(fetched.responses[0]!.partitions[0]!.records ?? Buffer.alloc(0)).map(codecOf);
    // librdkafka before 2.11.1 compresses only where Produce v2 is advertised (KAFKA-18659): Kafka 4 keeps it so.
    assert.deepEqual(new Set(codecs), new Set([version === '3.9' ? 0 : GZIP]), `batch codecs ${codecs.join(',')}`);

    assert.deepEqual(await runPython<string[]>('confluent_txn_rounds.py', [serve.bootstrap, 'txn', `txn-${version}`]), ['committed', 'last']);
  });
}
