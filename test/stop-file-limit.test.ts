/** A stop with the process at its open-file limit is clean: the next start scans nothing, and every acknowledged batch is there. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { valuesBatch } from './helpers/batch.js';
import { startServe } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';

const FILE_LIMIT = 256;
/** Partitions of each topic created until one cannot be. */
const PER_TOPIC = 4;

test('a broker at its open-file limit stops cleanly and keeps every acknowledged batch', async (t) => {
  const limited = await startServe(['--log-level', 'info'], undefined, FILE_LIMIT);
  t.after(() => rm(limited.dataDir, { recursive: true, force: true }));
  /** Topic and partition of each batch acknowledged, and the prefix of its values. */
  const acknowledged: [string, number, string][] = [];
  const topics: string[] = [];
  try {
    const client = await WireClient.connect(limited.port);
    // Until a topic cannot be created: its partitions' files could not all be opened.
    for (let k = 0; k < FILE_LIMIT; k++) {
      const created = await createTopic(client, `t${k}`, PER_TOPIC).then(
        () => true,
        () => false,
      );
      if (!created) break;
      topics.push(`t${k}`);
    }
    for (const topic of topics) {
      for (let p = 0; p < PER_TOPIC; p++) {
        const prefix = `${topic}/${p}-`;
        const response = await client.request(ProduceRequest, ProduceResponse, 9, {
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: topic, partitionData: [{ index: p, records: valuesBatch(3, {}, prefix) }] }],
        });
        if (response.responses[0]!.partitionResponses[0]!.errorCode === 0) acknowledged.push([topic, p, prefix]);
      }
    }
    client.close();
  } finally {
    const code = await limited.stop();
    assert.doesNotMatch(limited.output(), /unclean stop/);
    assert.equal(code, 0, limited.output());
  }
  assert.ok(topics.length < FILE_LIMIT, 'the broker reached its limit');
  assert.ok(acknowledged.length > 0, 'some partitions took batches');

  const again = await startServe(['--log-level', 'info'], limited.dataDir);
  try {
    assert.doesNotMatch(again.output(), /recovered partition log/, 'a clean start scans nothing');
    const client = await WireClient.connect(again.port);
    for (const [topic, p, prefix] of acknowledged) {
      const response = await client.request(FetchRequest, FetchResponse, 12, fetchOf(topic, [p]));
      const records = response.responses[0]!.partitions[0]!.records;
      assert.ok(records !== null && records.includes(Buffer.from(`${prefix}0`)), `${topic}/${p} kept its acknowledged batch`);
    }
    client.close();
  } finally {
    await again.stop();
  }
});
