/**
 * The cleaning rule, pure: which records of a compacted segment stay. As Kafka's `Cleaner.shouldRetainRecord`:
 * a record stays while no later record has its key (in the part of the log the offset map
 * covers); a tombstone (a null value) that is its key's latest stays until its batch is older
 * than delete.retention.ms; a record without a key goes. Offsets never change: what goes leaves
 * a gap. A batch keeps its header whatever goes, and stays, emptied if need be, when it is one of
 * a producer's remembered batches (so that producer state replayed from the log is what it was)
 * or the segment's last (so that each segment still ends where the next begins). Batches the rule
 * cannot judge yet (control and transactional batches) stay whole, and their keys stand for
 * nothing later records must yield to.
 */

export interface RecordToJudge {
  readonly offset: number;
  readonly keyed: boolean;
  /** The latest offset of its key in the part of the log the offset map covers; undefined when it holds none. */
  readonly latest: number | undefined;
  readonly tombstone: boolean;
}

export interface BatchToJudge {
  readonly baseOffset: number;
  /** The batch's time (its max timestamp), which delete.retention.ms counts from. */
  readonly time: number;
  /** A control or transactional batch: kept whole. */
  readonly untouchable: boolean;
  readonly records: readonly RecordToJudge[];
}

export interface CleaningRules {
  /** Tombstones in batches older than this go. */
  readonly tombstonesBefore: number;
  /** Base offsets of the batches in some producer's window. */
  readonly producerBatches: ReadonlySet<number>;
}

/** What becomes of a batch: kept as it is, gone, or kept with the records at these indexes only (perhaps none). */
export type BatchFate = { readonly kind: 'whole' } | { readonly kind: 'gone' } | { readonly kind: 'some'; readonly keep: readonly number[] };

const WHOLE: BatchFate = { kind: 'whole' };
const GONE: BatchFate = { kind: 'gone' };

/** Whether a record of a judged batch stays. */
export function recordStays(record: RecordToJudge, batch: BatchToJudge, rules: CleaningRules): boolean {
  if (!record.keyed) return false;
  if (record.offset < (record.latest ?? -1)) return false;
  return !record.tombstone || batch.time >= rules.tombstonesBefore;
}

/** The fate of a batch; `last`: the last of its segment. */
export function batchFate(batch: BatchToJudge, rules: CleaningRules, last: boolean): BatchFate {
  if (batch.untouchable) return WHOLE;
  const keep: number[] = [];
  batch.records.forEach((record, index) => {
    if (recordStays(record, batch, rules)) keep.push(index);
  });
  if (keep.length > 0) return keep.length === batch.records.length ? WHOLE : { kind: 'some', keep };
  // Emptied, or left empty by an earlier cleaning: its header stays only while it is needed.
  if (!rules.producerBatches.has(batch.baseOffset) && !last) return GONE;
  return batch.records.length === 0 ? WHOLE : { kind: 'some', keep };
}
