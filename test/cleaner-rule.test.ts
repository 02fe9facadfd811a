import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { batchFate, type BatchFate, type BatchToJudge, type CleaningRules } from '../src/log/cleaner/clean-rule.js';
import { ENTRY_OVERHEAD_BYTES, OffsetMap } from '../src/log/cleaner/offset-map.js';
import { ProducerStates } from '../src/log/producer-states.js';
import type { BatchHeader } from '../src/protocol/record-batch.js';

/** A batch as a producer wrote it: its records' keys (undefined: none) and whether each is a tombstone. */
interface Written {
  readonly producer: number; // 0: not idempotent
  readonly newEpoch: boolean;
  readonly untouchable: boolean;
  readonly time: number;
  readonly records: readonly { key: string | undefined; tombstone: boolean }[];
}

/** True about once in `n`. */
const rarely = (n: number): fc.Arbitrary<boolean> => fc.integer({ min: 1, max: n }).map((d) => d === 1);

const written: fc.Arbitrary<Written> = fc.record({
  producer: fc.integer({ min: 0, max: 3 }),
  newEpoch: rarely(8),
  untouchable: rarely(10),
  time: fc.integer({ min: 0, max: 100 }),
  records: fc.array(fc.record({ key: fc.option(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { freq: 12, nil: undefined }), tombstone: fc.boolean() }), {
    minLength: 1,
    maxLength: 4,
  }),
});

/** A batch at its offsets, its records with their keys. */
interface LaidOut {
  readonly baseOffset: number;
  readonly time: number;
  readonly untouchable: boolean;
  readonly records: readonly { offset: number; key: Buffer | undefined; tombstone: boolean }[];
}

interface Log {
  readonly batches: LaidOut[];
  readonly headers: BatchHeader[];
  /** Where each segment begins, as indexes into batches. */
  readonly segmentStarts: number[];
}

/** The batches at their offsets, with headers as the log stores them, cut into segments. */
function layOut(writes: readonly Written[], cuts: readonly boolean[]): Log {
  const batches: LaidOut[] = [];
  const headers: BatchHeader[] = [];
  const segmentStarts = [0];
  const producers = new Map<number, { epoch: number; seq: number }>();
  let offset = 0;
  writes.forEach((w, i) => {
    if (i > 0 && cuts[i] === true) segmentStarts.push(i);
    let producerId = -1n;
    let epoch = -1;
    let baseSequence = -1;
    if (w.producer > 0) {
      const p = producers.get(w.producer) ?? { epoch: 0, seq: 0 };
      if (w.newEpoch) Object.assign(p, { epoch: p.epoch + 1, seq: 0 });
      producerId = BigInt(w.producer);
      epoch = p.epoch;
      baseSequence = p.seq;
      p.seq += w.records.length;
      producers.set(w.producer, p);
    }
    const records = w.records.map((r, j) => ({ offset: offset + j, key: r.key === undefined ? undefined : Buffer.from(r.key), tombstone: r.tombstone }));
    batches.push({ baseOffset: offset, time: w.time, untouchable: w.untouchable, records });
    headers.push({
      baseOffset: offset,
      size: 61,
      magic: 2,
      attributes: 0,
      lastOffsetDelta: w.records.length - 1,
      baseTimestamp: w.time,
      maxTimestamp: w.time,
      producerId,
      producerEpoch: epoch,
      baseSequence,
      recordCount: w.records.length,
    });
    offset += w.records.length;
  });
  return { batches, headers, segmentStarts };
}

/** Producer state replayed from `headers`, by producer id. */
function replay(headers: readonly BatchHeader[]): unknown[] {
  const states = new ProducerStates();
  for (const header of headers) states.replay(header, header.baseOffset, 0);
  return [...states.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

/** What the cleaner judges by: the offset map over `mapped` batches, producer windows after all of them. */
interface Judging {
  readonly map: OffsetMap;
  readonly rules: CleaningRules;
}

function rulesFor(log: Log, mapped: number, tombstonesBefore: number, mapBytes = 1 << 20): Judging {
  const map = new OffsetMap(mapBytes);
  for (const batch of log.batches.slice(0, mapped)) {
    if (batch.untouchable) continue;
    for (const r of batch.records) if (r.key !== undefined) map.put(r.key, 0, r.key.length, r.offset);
  }
  const states = new ProducerStates();
  for (const header of log.headers) states.replay(header, header.baseOffset, 0);
  const producerBatches = new Set([...states.entries()].flatMap(([, entry]) => entry.state.window.map((w) => w.baseOffset)));
  return { map, rules: { tombstonesBefore, producerBatches } };
}

/** The batch as the cleaner judges it, each record with its key's latest offset in the map. */
function judged(batch: LaidOut, map: OffsetMap): BatchToJudge {
  const records = batch.records.map(({ offset, key, tombstone }) => ({
    offset,
    keyed: key !== undefined,
    latest: key === undefined ? undefined : map.get(key, 0, key.length),
    tombstone,
  }));
  return { ...batch, records };
}

/** Each segment of the first `segments` cleaned by the rule; the fates of all batches (later ones whole). */
function clean(log: Log, segments: number, { map, rules }: Judging): BatchFate[] {
  const fates: BatchFate[] = [];
  const bounds = [...log.segmentStarts, log.batches.length];
  for (let s = 0; s < log.segmentStarts.length; s++) {
    const batches = log.batches.slice(bounds[s], bounds[s + 1]);
    fates.push(...batches.map((batch, i): BatchFate => (s < segments ? batchFate(judged(batch, map), rules, i === batches.length - 1) : { kind: 'whole' })));
  }
  return fates;
}

function keptOffsets(log: Log, fates: readonly BatchFate[]): Set<number> {
  return new Set(
    log.batches.flatMap((batch, i) => {
      const fate = fates[i]!;
      if (fate.kind === 'gone') return [];
      return fate.kind === 'whole' ? batch.records.map((r) => r.offset) : fate.keep.map((k) => batch.records[k]!.offset);
    }),
  );
}

const logs = fc.tuple(fc.array(written, { minLength: 1, maxLength: 40 }), fc.array(rarely(4), { maxLength: 40 }), fc.integer({ min: 0, max: 110 }));

test('cleaning the whole log keeps the latest record of each key at its offset, drops old tombstones, and every producer window replays the same', () => {
  fc.assert(
    fc.property(logs, ([writes, cuts, horizon]) => {
      const log = layOut(writes, cuts);
      // The active segment is never cleaned: the last segment here stands for the others' end.
      const fates = clean(log, log.segmentStarts.length, rulesFor(log, log.batches.length, horizon));

      // The model: untouchable records all; of the rest, each key's last record, unless an old tombstone.
      const latest = new Map<string, { offset: number; tombstone: boolean; time: number }>();
      const expected = new Set<number>();
      for (const batch of log.batches) {
        for (const r of batch.records) {
          if (batch.untouchable) expected.add(r.offset);
          else if (r.key !== undefined) latest.set(r.key.toString(), { offset: r.offset, tombstone: r.tombstone, time: batch.time });
        }
      }
      for (const { offset, tombstone, time } of latest.values()) if (!tombstone || time >= horizon) expected.add(offset);
      assert.deepEqual(
        [...keptOffsets(log, fates)].sort((a, b) => a - b),
        [...expected].sort((a, b) => a - b),
      );

      // Batches stay where some record does, for a producer's window, and at each segment's end.
      const ends = new Set(
        log.segmentStarts
          .slice(1)
          .map((s) => s - 1)
          .concat(log.batches.length - 1),
      );
      const rules = rulesFor(log, log.batches.length, horizon);
      log.batches.forEach((batch, i) => {
        const stays = batch.records.some((r) => expected.has(r.offset)) || rules.rules.producerBatches.has(batch.baseOffset) || ends.has(i);
        assert.equal(fates[i]!.kind !== 'gone', stays, `batch at ${batch.baseOffset}`);
      });
      assert.deepEqual(replay(log.headers.filter((_, i) => fates[i]!.kind !== 'gone')), replay(log.headers), 'producer state replayed from the cleaned log');
    }),
    { numRuns: 500 },
  );
});

test('cleaning part of the log, with an offset map too small for every key, removes only records a later one of their key stands for', () => {
  fc.assert(
    fc.property(logs, fc.nat(), fc.integer({ min: 0, max: 8 }), ([writes, cuts, horizon], segmentPick, mapEntries) => {
      const log = layOut(writes, cuts);
      const segments = segmentPick % log.segmentStarts.length;
      const mapped = [...log.segmentStarts, log.batches.length][segments]!;
      // Room for a few one-byte keys: the map holds the first of them it meets, as a full map stops.
      const rules = rulesFor(log, mapped, horizon, mapEntries * (1 + ENTRY_OVERHEAD_BYTES));
      const fates = clean(log, segments, rules);
      const kept = keptOffsets(log, fates);
      const all = log.batches.flatMap((batch) => batch.records.map((r) => ({ ...r, batch })));
      for (const r of all) {
        if (kept.has(r.offset)) continue;
        assert.ok(!r.batch.untouchable, `a record of an untouchable batch went: ${r.offset}`);
        const superseded =
          r.key !== undefined && all.some((later) => later.offset > r.offset && !later.batch.untouchable && later.key?.equals(r.key!) === true);
        const oldTombstone = r.tombstone && r.batch.time < horizon;
        assert.ok(r.key === undefined || superseded || oldTombstone, `record ${r.offset} went with nothing standing for it`);
      }
      assert.deepEqual(replay(log.headers.filter((_, i) => fates[i]!.kind !== 'gone')), replay(log.headers));
    }),
    { numRuns: 500 },
  );
});
