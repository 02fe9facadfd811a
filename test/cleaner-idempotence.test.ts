import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InitProducerIdRequest, InitProducerIdResponse } from '../src/protocol/messages/init-producer-id.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { buildBatch } from './helpers/batch.js';
import { startServe, type ServeProcess } from './helpers/serve-process.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchAllBatches } from './helpers/wire-fetch.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

const TOPIC = 'table';
const SERVE_ARGS = ['--cleaner-backoff-ms', '20'];

test('a retry of a batch whose records compaction removed is a duplicate with its offset, after a kill -9 and a replay of the compacted log too', async (t) => {
  let serve: ServeProcess = await startServe(SERVE_ARGS);
  let client = await WireClient.connect(serve.port);
  t.after(async () => {
    client.close();
    await serve.stop('SIGKILL');
    await rm(serve.dataDir, { recursive: true, force: true });
  });
  // Three batches or so to a segment, so that cleaning sees many.
  await createTopic(client, TOPIC, 1, { 'cleanup.policy': 'compact', 'segment.bytes': '300', 'min.cleanable.dirty.ratio': '0.01' });
  const init = await client.request(InitProducerIdRequest, InitProducerIdResponse, 4, {
    transactionalId: null,
    transactionTimeoutMs: 60000,
    producerId: -1n,
    producerEpoch: -1,
  });
  const producerId = init.producerId;
  // Ten batches, each writing keys a and b again: every batch but the last is compacted away.
  const sent = Array.from({ length: 10 }, (_, i) =>
    buildBatch(
      [
        { key: Buffer.from('a'), value: Buffer.from(`a${i}`) },
        { key: Buffer.from('b'), value: Buffer.from(`b${i}`) },
      ],
      {
        producerId,
        producerEpoch: 0,
        baseSequence: 2 * i,
      },
    ),
  );
  for (const [i, batch] of sent.entries()) assert.deepEqual(await produceBatch(client, TOPIC, 0, Buffer.from(batch)), { errorCode: 0, baseOffset: 2 * i });
  // Another producer's records after them, so that the last of them is in a segment behind the one written.
  for (let i = 0; i < 4; i++) await produceBatch(client, TOPIC, 0, buildBatch([{ key: Buffer.from('c'), value: Buffer.from(`c${i}`) }]));

  // Offsets of the records a consumer reads: those of a and b only at 18 and 19 once cleaned.
  const readOffsets = async (): Promise<number[]> =>
    (await fetchAllBatches(client, TOPIC, 0)).flatMap((b) => {
      const header = readBatchHeader(b);
      return header.recordCount === 0 ? [] : Array.from({ length: header.lastOffsetDelta + 1 }, (_, i) => header.baseOffset + i);
    });
  await until(async () => (await readOffsets())[0] === 18, 'the records of batches 0-8 are compacted away');

  const retry = async (i: number): Promise<unknown> => produceBatch(client, TOPIC, 0, Buffer.from(sent[i]!));
  assert.deepEqual(await retry(6), { errorCode: 0, baseOffset: 12 }, 'a retry after compaction is a duplicate with its first offset');

  // Killed; its producer snapshots gone, so producer state is replayed from the compacted log alone.
  await serve.stop('SIGKILL');
  client.close();
  const partition = join(serve.dataDir, `${TOPIC}-0`);
  for (const name of await readdir(partition)) if (name.endsWith('.snapshot')) await rm(join(partition, name));
  serve = await startServe(SERVE_ARGS, serve.dataDir);
  client = await WireClient.connect(serve.port);
  for (const i of [5, 6, 9]) assert.deepEqual(await retry(i), { errorCode: 0, baseOffset: 2 * i }, `batch ${i} after the restart`);
  const next = buildBatch([{ key: Buffer.from('a'), value: Buffer.from('a10') }], { producerId, producerEpoch: 0, baseSequence: 20 });
  assert.deepEqual(await produceBatch(client, TOPIC, 0, next), { errorCode: 0, baseOffset: 24 }, 'the producer goes on where it was');
});
