/** A compacted partition's records for the cleaner tests: written with what is known of each, and read back. */
import type { PartitionLog } from '../../src/log/partition-log.js';
import type { StorageOptions } from '../../src/log/storage.js';
import { DEFAULT_CONFIG } from '../../src/settings/settings.js';
import { readBatchHeader, storedRecords } from '../../src/protocol/record-batch.js';
import { buildBatch, type TestRecord } from './batch.js';
import { readAll, written } from './log.js';
import { seeded } from './seeded.js';

export interface Written {
  readonly offset: number;
  readonly key: string;
  /** Null: a tombstone. */
  readonly value: string | null;
}

/**
 * Appends `batches` batches of 1–3 records over keys k0 to k<keys - 1>, every fifth a producer's
 * (of `producers` taking turns, ids 7 on), some tombstones; what was written at each offset.
 */
export async function fill(log: PartitionLog, batches: number, seed: number, now = Date.now(), producers = 1, keys = 20): Promise<Written[]> {
  const random = seeded(seed);
  const appended: Written[] = [];
  // Each producer numbers on from its last batch in the log, if any.
  const sequences = Array.from({ length: producers }, (_, p) => (log.producerState(7n + BigInt(p))?.state.window.at(-1)?.lastSeq ?? -1) + 1);
  for (let i = 0; i < batches; i++) {
    const records: TestRecord[] = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
      const key = `k${Math.floor(random() * keys)}`;
      return { key: Buffer.from(key), value: random() < 0.15 ? null : Buffer.from(`${key}@${i}`) };
    });
    const producer = i % 5 === 0 ? (i / 5) % producers : undefined;
    const bytes = buildBatch(
      records,
      producer === undefined
        ? { baseTimestamp: now }
        : { producerId: 7n + BigInt(producer), producerEpoch: 0, baseSequence: sequences[producer], baseTimestamp: now },
    );
    if (producer !== undefined) sequences[producer]! += records.length;
    const base = written(log.append(bytes, readBatchHeader(bytes), now));
    records.forEach((r, j) => appended.push({ offset: base + j, key: r.key!.toString(), value: r.value?.toString() ?? null }));
  }
  await log.whenWritten(log.logEndOffset - 1);
  return appended;
}

/** The records of a stored batch, as compaction reads them: offset, key and value (null for a tombstone). */
export function recordsOf(batch: Buffer): Written[] {
  const { baseOffset } = readBatchHeader(batch);
  const stored = storedRecords(batch, 1 << 20);
  const out: Written[] = [];
  for (let i = 0; i < stored.count; i++) {
    const { body } = stored;
    const key = body.toString('utf8', stored.keyStart(i), stored.keyEnd(i));
    out.push({ offset: baseOffset + stored.offsetDelta(i), key, value: stored.tombstone(i) ? null : valueAt(body, stored.keyEnd(i)) });
  }
  return out;
}

/** The value whose length prefix is at `pos`. */
function valueAt(body: Buffer, pos: number): string {
  let zigzag = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = body[pos++]!;
    zigzag |= (byte & 0x7f) << shift;
    if (byte < 0x80) break;
  }
  const length = (zigzag >>> 1) ^ -(zigzag & 1);
  return body.toString('utf8', pos, pos + length);
}

/** The records a consumer reads from the log start, by offset. */
export async function stored(log: PartitionLog): Promise<Map<number, Written>> {
  const out = new Map<number, Written>();
  for (const batch of await readAll(log)) {
    // The batch the log start lies inside may hold records before it, which consumers pass over.
    for (const record of recordsOf(batch)) if (record.offset >= log.logStartOffset) out.set(record.offset, record);
  }
  return out;
}

/** Storage options of the tests that stop a long cleaning: small segments, so that it swaps many; a cleaner that runs only when told. */
export const LONG_CLEANING_OPTIONS = {
  topicDefaults: { ...DEFAULT_CONFIG, segmentBytes: 2048 },
  cleaner: { dedupeBufferBytes: 1 << 20, backoffMs: 3_600_000 },
} satisfies StorageOptions;
