import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { readBatchHeader } from '../../src/protocol/record-batch.js';
import { runPython } from '../helpers/external.js';
import { startServe } from '../helpers/serve-process.js';
import { until } from '../helpers/until.js';
import { WireClient } from '../helpers/wire-client.js';
import { fetchAllBatches } from '../helpers/wire-fetch.js';

type Record = [offset: number, key: string, value: string | null];

test('confluent-kafka reads a compacted topic: the latest record of each key at its offset, across the gaps', async (t) => {
  const serve = await startServe(['--cleaner-backoff-ms', '20']);
  const client = await WireClient.connect(serve.port);
  t.after(async () => {
    client.close();
    await serve.stop();
    await rm(serve.dataDir, { recursive: true, force: true });
  });
  const keys = 20;
  const rounds = 15;
  const produced = await runPython<{ unflushed: number; errors: string[]; acked: Record[] }>('confluent_compacted.py', [
    'produce',
    serve.bootstrap,
    'compacted',
    keys,
    rounds,
  ]);
  assert.deepEqual([produced.errors, produced.unflushed, produced.acked.length], [[], 0, keys * rounds]);
  const stored = async (): Promise<number> => (await fetchAllBatches(client, 'compacted', 0)).reduce((n, b) => n + readBatchHeader(b).recordCount, 0);
  await until(async () => (await stored()) < (keys * rounds) / 2, 'the cleaner has compacted the topic');

  const { errors, read } = await runPython<{ errors: string[]; read: Record[] }>('confluent_compacted.py', ['consume', serve.bootstrap, 'compacted']);
  assert.deepEqual(errors, []);
  const acked = new Map(produced.acked.map((r) => [r[0], r]));
  for (const record of read) assert.deepEqual(record, acked.get(record[0]), `the record at ${record[0]} is the one acknowledged there`);
  assert.deepEqual(
    read.map((r) => r[0]),
    [...read.map((r) => r[0])].sort((a, b) => a - b),
    'in offset order',
  );
  const newest = (records: Record[]): Map<string, Record> => new Map(records.map((r) => [r[1], r]));
  assert.deepEqual(newest(read), newest(produced.acked), "each key's newest record, k0's tombstone too");
  assert.ok(read.length < produced.acked.length, `${read.length} of ${produced.acked.length} read`);
});
