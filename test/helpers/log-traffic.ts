/** The same endless, deterministic produce traffic for a writer process and the test that checks what it left. */
import { batch, type TestBatch } from './log.js';

/** `producers` idempotent producers taking turns, batches of 1..4 records. */
export function* traffic(producers = 3): Generator<TestBatch> {
  const seq = new Array<number>(producers).fill(0);
  for (let i = 0; ; i++) {
    const p = i % producers;
    const count = 1 + (Math.floor(i / producers) % 4);
    yield batch(count, { producerId: BigInt(p + 1), producerEpoch: 0, baseSequence: seq[p], baseTimestamp: 1_700_000_000_000 + i }, `t${i}-`);
    seq[p]! += count;
  }
}

export const KILL_TEST_OPTIONS = { segmentBytes: 32 * 1024, indexIntervalBytes: 512, checkpointIntervalMs: 20 } as const;
