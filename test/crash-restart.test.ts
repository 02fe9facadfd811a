/**
 * The promise of the product, end to end: `brook serve` killed with SIGKILL in the middle of
 * idempotent produce traffic, restarted on the same data directory, answers every retry exactly
 * as before — each of the last five batches per producer with its original offset — loses
 * nothing acknowledged, and lets each producer continue its sequence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WINDOW_SIZE } from '../src/idempotence/rules.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { valuesBatch } from './helpers/batch.js';
import { startServe, tempDataDir } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

const TOPIC = 'crash';
const PRODUCERS = 3;

interface Sent {
  readonly seq: number;
  readonly count: number;
  readonly bytes: Buffer;
  /** Offset the broker acknowledged; undefined while in flight when the broker died. */
  offset?: number;
}

/** One idempotent producer on partition `pid % 2`, sending batches of 1–4 records until stopped. */
async function producerLoop(port: number, producerId: number, sent: Sent[], stop: { now: boolean }): Promise<void> {
  const client = await WireClient.connect(port);
  let seq = 0;
  try {
    while (!stop.now) {
      const count = 1 + ((seq + producerId) % 4);
      const bytes = valuesBatch(count, { producerId: BigInt(producerId), producerEpoch: 0, baseSequence: seq }, `p${producerId}s${seq}-`);
      const entry: Sent = { seq, count, bytes: Buffer.from(bytes) };
      sent.push(entry);
      const { errorCode, baseOffset } = await produceBatch(client, TOPIC, producerId % 2, bytes);
      assert.equal(errorCode, 0);
      entry.offset = baseOffset;
      seq += count;
    }
  } catch {
    // The broker was killed under us: the last batch stays unacknowledged.
  } finally {
    client.close();
  }
}

async function storedBatches(client: WireClient, partition: number): Promise<Map<number, { producerId: bigint; seq: number; count: number }>> {
  const stored = new Map<number, { producerId: bigint; seq: number; count: number }>();
  let offset = 0;
  for (;;) {
    const res = await client.request(FetchRequest, FetchResponse, 12, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: TOPIC,
          topicId: ZERO_UUID,
          partitions: [
            { partition, currentLeaderEpoch: -1, fetchOffset: BigInt(offset), lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20 },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    });
    const records = res.responses[0]!.partitions[0]!.records ?? Buffer.alloc(0);
    if (records.length === 0) return stored;
    for (let pos = 0; pos < records.length;) {
      const h = readBatchHeader(records, pos);
      stored.set(h.baseOffset, { producerId: h.producerId, seq: h.baseSequence, count: h.recordCount });
      offset = h.baseOffset + h.recordCount;
      pos += h.size;
    }
  }
}

test('SIGKILL mid-traffic, restart: acknowledged batches kept, the last five retries get their offsets, sequences continue', async () => {
  const dataDir = await tempDataDir();
  const first = await startServe(['--partitions', '2'], dataDir);
  const setup = await WireClient.connect(first.port);
  await createTopic(setup, TOPIC, 2);
  setup.close();

  const sent: Sent[][] = Array.from({ length: PRODUCERS }, () => []);
  const stop = { now: false };
  const loops = sent.map((list, i) => producerLoop(first.port, 100 + i, list, stop));
  while (sent.some((list) => list.filter((s) => s.offset !== undefined).length < 8)) await new Promise((r) => setTimeout(r, 20));
  await first.stop('SIGKILL');
  stop.now = true;
  await Promise.all(loops);

  const second = await startServe(['--partitions', '2'], dataDir);
  const client = await WireClient.connect(second.port);
  try {
    for (const [i, list] of sent.entries()) {
      const producerId = 100 + i;
      const partition = producerId % 2;
      const acked = list.filter((s) => s.offset !== undefined);
      // A batch in flight at the kill may or may not have been written: its retry is either answered
      // as a duplicate or appended now; either way it is then stored exactly once.
      const inFlight = list.find((s) => s.offset === undefined);
      if (inFlight !== undefined) {
        const retry = await produceBatch(client, TOPIC, partition, Buffer.from(inFlight.bytes));
        assert.equal(retry.errorCode, 0, `in-flight retry of producer ${producerId}`);
        inFlight.offset = retry.baseOffset;
        acked.push(inFlight);
      }
      for (const batch of acked.slice(-WINDOW_SIZE)) {
        const retry = await produceBatch(client, TOPIC, partition, Buffer.from(batch.bytes));
        assert.deepEqual(retry, { errorCode: 0, baseOffset: batch.offset }, `retry of producer ${producerId} seq ${batch.seq}`);
      }
      const sixthFromEnd = acked.at(-WINDOW_SIZE - 1);
      if (sixthFromEnd !== undefined) {
        const retry = await produceBatch(client, TOPIC, partition, Buffer.from(sixthFromEnd.bytes));
        assert.equal(retry.errorCode, 45, 'a batch that left the window is out of order, not a duplicate');
      }
      const last = acked.at(-1)!;
      const next = valuesBatch(2, { producerId: BigInt(producerId), producerEpoch: 0, baseSequence: last.seq + last.count });
      const appended = await produceBatch(client, TOPIC, partition, next);
      assert.equal(appended.errorCode, 0, 'the sequence continues');
      acked.push({ seq: last.seq + last.count, count: 2, bytes: next, offset: appended.baseOffset });
      list.splice(0, list.length, ...acked);
    }
    // Everything acknowledged is stored exactly once, at the offset it was acknowledged with.
    const stored = new Map([...(await storedBatches(client, 0)), ...(await storedBatches(client, 1))].map(([o, b]) => [`${b.producerId % 2n}:${o}`, b]));
    for (const [i, list] of sent.entries()) {
      const producerId = 100 + i;
      const seqs = new Set<number>();
      for (const batch of list) {
        const found = stored.get(`${producerId % 2}:${batch.offset}`);
        assert.deepEqual(found, { producerId: BigInt(producerId), seq: batch.seq, count: batch.count });
        seqs.add(batch.seq);
      }
      const copies = [...stored.values()].filter((b) => b.producerId === BigInt(producerId));
      assert.equal(copies.length, seqs.size, `producer ${producerId}: no batch stored twice`);
    }
  } finally {
    client.close();
    await second.stop();
  }
});
