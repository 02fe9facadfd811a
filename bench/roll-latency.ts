/**
 * Produce latency across segment rolls with many producer states: a partition log holding
 * 300,000 producers' states, written at a steady pace with small segments so that it rolls
 * again and again (each roll snapshots every state), against the same with 10 states, in the
 * same run. Latency runs from when a batch was due to when it was written, so that a stalled
 * event loop counts for every batch it held up.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PartitionLog } from '../src/log/partition-log.js';
import { readBatchHeader, type BatchHeader } from '../src/protocol/record-batch.js';
import { valuesBatch } from '../test/helpers/batch.js';
import { alternating, lowest } from './measure.js';
import { compared, fmt, type Row } from './table.js';

/** Batches due per millisecond while measuring. */
const PER_MS = 2;
/** Producers writing while measuring, in turn: the others' states only sit there and are snapshotted. */
const WRITERS = 10;

function producerBatch(producerId: number, seq: number, count: number): { bytes: Buffer; header: BatchHeader } {
  const bytes = valuesBatch(count, { producerId: BigInt(producerId), producerEpoch: 0, baseSequence: seq }, 'x'.repeat(40));
  return { bytes, header: readBatchHeader(bytes) };
}

/** Worst latency over `rolls` rolls of a log holding `producers` states. */
async function worstAcrossRolls(producers: number, rolls: number, segmentBytes: number): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'brook-bench-rolls-'));
  const log = await PartitionLog.open(dir, { segmentBytes: 1 << 30 });
  try {
    // One batch per producer, in one segment: no roll while filling.
    for (let p = 0; p < producers; p++) {
      const b = producerBatch(p, 0, 1);
      log.append(b.bytes, b.header, Date.now());
    }
    await log.whenWritten(log.logEndOffset - 1);
    // The filled segment is past segmentBytes: the first batch from here rolls, and one every segmentBytes after.
    log.configure({ segmentBytes });
    let worst = 0;
    const pending: Promise<void>[] = [];
    const start = performance.now();
    // The first WRITERS producers write on in turn, 10-record batches, PER_MS batches each millisecond.
    const seqs = new Array<number>(WRITERS).fill(1);
    let written = 0;
    for (let i = 0; written < (rolls - 1) * segmentBytes; i++) {
      const due = start + i / PER_MS;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const writer = i % WRITERS;
      const b = producerBatch(writer, seqs[writer]!, 10);
      seqs[writer]! += 10;
      const appended = log.append(b.bytes, b.header, Date.now());
      if (appended.kind !== 'append') throw new Error(`batch refused: ${appended.kind}`);
      const base = appended.baseOffset;
      written += b.bytes.length;
      pending.push(
        log.whenWritten(base).then(() => {
          worst = Math.max(worst, performance.now() - due);
        }),
      );
    }
    await Promise.all(pending);
    return worst;
  } finally {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function rollLatencyBench(smoke: boolean): Promise<Row[]> {
  const many = smoke ? 3_000 : 300_000;
  const rolls = smoke ? 2 : 5;
  // A roll about every 800 ms.
  const segmentBytes = smoke ? 64 * 1024 : 1024 * 1024;
  const [crowded, sparse] = (await alternating(smoke ? 1 : 3, [
    () => worstAcrossRolls(many, rolls, segmentBytes),
    () => worstAcrossRolls(10, rolls, segmentBytes),
  ])) as [number[], number[]];
  return [
    compared(
      `worst produce latency across ${rolls} segment rolls, ${fmt(many)} producer states (ms)`,
      lowest(crowded),
      lowest(sparse),
      '10 producer states',
      1,
    ),
  ];
}
