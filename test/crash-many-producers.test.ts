/**
 * `brook serve` SIGKILLed while thousands of idempotent producers write to one partition whose
 * small segments roll again and again, each roll snapshotting every producer's state over
 * several turns: after a restart nothing acknowledged is lost, and every producer's remembered
 * batches are still answered as duplicates with their original offsets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WINDOW_SIZE } from '../src/idempotence/rules.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { valuesBatch } from './helpers/batch.js';
import { startServe, tempDataDir } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchAllBatches } from './helpers/wire-fetch.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

const TOPIC = 'many';
/** More producers than a snapshot encodes in one turn. */
const PRODUCERS = 2_500;
const CONNECTIONS = 8;
/** Producer ids start here, as the broker's own would not. */
const FIRST_ID = 10_000;

interface Sent {
  readonly seq: number;
  readonly count: number;
  readonly bytes: Buffer;
  /** Offset the broker acknowledged; undefined while in flight when the broker died. */
  offset?: number;
}

/** Producers c, c + CONNECTIONS, …, over one connection, a batch of 1–3 records each in turn, until the broker is gone. */
async function connectionLoop(port: number, c: number, sent: Sent[][], stop: { now: boolean }): Promise<void> {
  const client = await WireClient.connect(port);
  try {
    for (let round = 0; !stop.now; round++) {
      for (let p = c; p < PRODUCERS && !stop.now; p += CONNECTIONS) {
        const list = sent[p]!;
        const last = list.at(-1);
        const seq = last === undefined ? 0 : last.seq + last.count;
        const count = 1 + ((round + p) % 3);
        const bytes = valuesBatch(count, { producerId: BigInt(FIRST_ID + p), producerEpoch: 0, baseSequence: seq }, `p${p}s${seq}-`);
        const entry: Sent = { seq, count, bytes: Buffer.from(bytes) };
        list.push(entry);
        const { errorCode, baseOffset } = await produceBatch(client, TOPIC, 0, bytes);
        assert.equal(errorCode, 0);
        entry.offset = baseOffset;
      }
    }
  } catch {
    // The broker was killed under us: the batch in flight stays unacknowledged.
  } finally {
    client.close();
  }
}

test('SIGKILL amid rolls with 2,500 producers: nothing acknowledged lost, every window still answers duplicates', { timeout: 120_000 }, async () => {
  const dataDir = await tempDataDir();
  const first = await startServe(['--partitions', '1'], dataDir);
  const setup = await WireClient.connect(first.port);
  await createTopic(setup, TOPIC, 1, { 'segment.bytes': String(64 * 1024) });
  setup.close();

  const sent: Sent[][] = Array.from({ length: PRODUCERS }, () => []);
  const stop = { now: false };
  const loops = Array.from({ length: CONNECTIONS }, (_, c) => connectionLoop(first.port, c, sent, stop));
  // Past WINDOW_SIZE batches for every producer, so that every window is full and moves at each batch.
  while (sent.some((list) => list.filter((s) => s.offset !== undefined).length < WINDOW_SIZE + 1)) await new Promise((r) => setTimeout(r, 20));
  await first.stop('SIGKILL');
  stop.now = true;
  await Promise.all(loops);

  const second = await startServe(['--partitions', '1'], dataDir);
  const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => WireClient.connect(second.port)));
  try {
    await Promise.all(
      clients.map(async (client, c) => {
        for (let p = c; p < PRODUCERS; p += CONNECTIONS) {
          const list = sent[p]!;
          // A batch in flight at the kill may or may not have been written: its retry is either
          // answered as a duplicate or appended now; either way it is then stored once.
          const inFlight = list.find((s) => s.offset === undefined);
          if (inFlight !== undefined) {
            const retry = await produceBatch(client, TOPIC, 0, Buffer.from(inFlight.bytes));
            assert.equal(retry.errorCode, 0, `in-flight retry of producer ${p}`);
            inFlight.offset = retry.baseOffset;
          }
          for (const batch of list.slice(-WINDOW_SIZE)) {
            const retry = await produceBatch(client, TOPIC, 0, Buffer.from(batch.bytes));
            assert.deepEqual(retry, { errorCode: 0, baseOffset: batch.offset }, `retry of producer ${p} seq ${batch.seq}`);
          }
        }
      }),
    );
    // Everything acknowledged is stored exactly once, at the offset it was acknowledged with.
    const stored = new Map<number, { producerId: bigint; seq: number; count: number }>();
    for (const bytes of await fetchAllBatches(clients[0]!, TOPIC, 0)) {
      const h = readBatchHeader(bytes);
      stored.set(h.baseOffset, { producerId: h.producerId, seq: h.baseSequence, count: h.recordCount });
    }
    const acknowledged = sent.flatMap((list, p) => list.map((s) => ({ p, ...s })));
    for (const { p, seq, count, offset } of acknowledged) {
      assert.deepEqual(stored.get(offset!), { producerId: BigInt(FIRST_ID + p), seq, count }, `producer ${p} seq ${seq} at ${offset}`);
    }
    assert.equal(stored.size, acknowledged.length, 'no batch is stored twice');
  } finally {
    for (const client of clients) client.close();
    await second.stop();
  }
});
