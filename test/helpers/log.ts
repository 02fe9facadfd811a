/** Temp directories, batches and whole-log views for the partition log tests. */
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { readBatchHeader, type BatchHeader } from '../../src/protocol/record-batch.js';
import type { LogOptions } from '../../src/log/options.js';
import { PartitionLog, type Appended } from '../../src/log/partition-log.js';
import { valuesBatch, type BatchOptions } from './batch.js';

interface Closable {
  close(): Promise<void>;
}

const closables = new WeakMap<TestContext, Closable[]>();

/** A fresh directory, removed when the test ends, after whatever closeAtEnd was given is closed. */
export async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'brook-log-'));
  t.after(async () => {
    await Promise.all((closables.get(t) ?? []).map((c) => c.close().catch(() => {})));
    await rm(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Closes `closable` when the test ends (if the test has not), before temp directories go. */
export function closeAtEnd<T extends Closable>(t: TestContext, closable: T): T {
  closables.set(t, [...(closables.get(t) ?? []), closable]);
  return closable;
}

export async function openLog(t: TestContext, dir: string, options: LogOptions = {}): Promise<PartitionLog> {
  return closeAtEnd(t, await PartitionLog.open(dir, options));
}

export interface TestBatch {
  readonly bytes: Buffer;
  readonly header: BatchHeader;
}

export function batch(count: number, options: BatchOptions = {}, prefix = 'v'): TestBatch {
  const bytes = valuesBatch(count, options, prefix);
  return { bytes, header: readBatchHeader(bytes) };
}

/** Producer `producerId`'s batches: `sizes` records each, sequences running on from `firstSeq`. */
export function producerBatches(producerId: bigint, sizes: readonly number[], options: BatchOptions = {}, firstSeq = 0): TestBatch[] {
  let seq = firstSeq;
  return sizes.map((count) => {
    const b = batch(count, { producerId, producerEpoch: 0, baseSequence: seq, ...options }, `p${producerId}-${seq}-`);
    seq += count;
    return b;
  });
}

export function appendAll(log: PartitionLog, batches: readonly TestBatch[], now = Date.now()): number[] {
  return batches.map((b) => written(log.append(b.bytes, b.header, now)));
}

/** The base offset of a batch `append` wrote; throws if the producer decision did not accept it. */
export function written(appended: Appended): number {
  if (appended.kind !== 'append') throw new Error(`the batch was not appended: ${appended.kind}`);
  return appended.baseOffset;
}

/** The batches in bytes read from a log, one buffer each. */
export function batchesIn(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let pos = 0; pos < bytes.length;) {
    const size = readBatchHeader(bytes, pos).size;
    out.push(bytes.subarray(pos, pos + size));
    pos += size;
  }
  return out;
}

/** Every stored batch from the log start to the high watermark, by repeated reads. */
export async function readAll(log: PartitionLog, maxBytes = 1 << 20): Promise<Buffer[]> {
  const out: Buffer[] = [];
  let offset = log.logStartOffset;
  while (offset < log.highWatermark) {
    const batches = batchesIn(await log.read(offset, maxBytes));
    if (batches.length === 0) throw new Error(`read at ${offset} returned nothing below ${log.highWatermark}`);
    for (const b of batches) {
      out.push(Buffer.from(b));
      const h = readBatchHeader(b);
      offset = h.baseOffset + h.lastOffsetDelta + 1;
    }
  }
  return out;
}

/** The whole producer state, ordered by producer id, for deep comparison. */
export function producerView(log: PartitionLog): unknown[] {
  return [...log.producers()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, e]) => [String(id), e.lastTimestamp, e.state.epoch, e.state.window]);
}

/** The directory as a kill -9 right now would leave it: a copy of its files, taken while the log runs on. */
export async function crashImage(dir: string, t: TestContext): Promise<string> {
  const image = await tempDir(t);
  for (const name of await readdir(dir)) {
    // A file renamed away meanwhile (an atomic write finishing) is simply not in the image.
    await copyFile(join(dir, name), join(image, name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
  return image;
}
