/**
 * How many records a partition holds, for the Topics view. Its offsets count more: a COMMIT or
 * ABORT marker takes an offset, and compaction leaves gaps. So the batch headers are read and
 * their record counts summed, control batches left out; each partition's count is kept and
 * brought up to date by reading only the batches written since, and read again from the log
 * start once that moves or compaction has rewritten a segment. One answer reads at most
 * READ_BUDGET bytes in all: a count not finished then is a lower bound, finished by later answers.
 */
import type { PartitionLog } from '../log/partition-log.js';
import { BATCH_HEADER_SIZE, isControl, readBatchHeader } from '../protocol/record-batch.js';

const READ_BYTES = 1024 * 1024;
const READ_BUDGET = 32 * 1024 * 1024;

interface Count {
  readonly start: number;
  readonly cleanings: number;
  /** The offset counted up to. */
  next: number;
  records: number;
}

/** Held by the log object, so a deleted partition's count goes with it. */
const counts = new WeakMap<PartitionLog, Count>();

export interface RecordCount {
  readonly records: number;
  /** False when the count stopped short of the high watermark: `records` is then a lower bound. */
  readonly exact: boolean;
}

/** Counts records of several logs within one answer's budget. */
export class RecordCounter {
  private budget = READ_BUDGET;

  async count(log: PartitionLog): Promise<RecordCount> {
    const start = log.logStartOffset;
    let c = counts.get(log);
    if (c === undefined || c.start !== start || c.cleanings !== log.cleanings) {
      c = { start, cleanings: log.cleanings, next: start, records: 0 };
      counts.set(log, c);
    }
    const end = log.highWatermark;
    while (c.next < end && this.budget > 0) {
      // Damage in the log is the messages view's and Fetch's to report: the count stops short of it.
      const batches = await log.read(c.next, READ_BYTES, undefined, end).catch(() => Buffer.alloc(0));
      if (batches.length === 0) break;
      this.budget -= batches.length;
      for (let pos = 0; pos + BATCH_HEADER_SIZE <= batches.length;) {
        const h = readBatchHeader(batches, pos);
        const last = h.baseOffset + h.lastOffsetDelta;
        // A batch the log start lies inside (DeleteRecords) counts only its records from there.
        if (last >= c.next && !isControl(h.attributes)) c.records += Math.min(h.recordCount, last + 1 - Math.max(h.baseOffset, c.next));
        c.next = Math.max(c.next, last + 1);
        pos += h.size;
      }
    }
    return { records: c.records, exact: c.next >= end };
  }
}
