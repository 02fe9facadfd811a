/** The same endless, deterministic produce traffic for a writer process and the test that checks what it left. */
import { batch, type TestBatch } from './log.js';

/** Three idempotent producers taking turns, batches of 1..4 records. */
export function* traffic(): Generator<TestBatch> {
  const seq = [0, 0, 0];
  for (let i = 0; ; i++) {
    const p = i % 3;
    const count = 1 + (Math.floor(i / 3) % 4);
    yield batch(count, { producerId: BigInt(p + 1), producerEpoch: 0, baseSequence: seq[p], baseTimestamp: 1_700_000_000_000 + i }, `t${i}-`);
    seq[p]! += count;
  }
}

export const KILL_TEST_OPTIONS = { segmentBytes: 32 * 1024, indexIntervalBytes: 512, checkpointIntervalMs: 20 } as const;
