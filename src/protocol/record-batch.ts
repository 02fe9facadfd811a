/**
 * A view of RecordBatch v2 (magic 2): the fixed 61-byte header and the checks a broker makes
 * before it stores a batch. Records are walked, never decoded into objects. The walk leaves at the
 * first fault by throwing MalformedRecords, so that its tight loop tests nothing else; the
 * produced-batch validator turns that into the Refusal it returns.
 */
import { CorruptPayload, gunzip, LargePayload, PayloadTooLarge, unlz4, unsnappy, unzstd } from './compression.js';
import { crc32c } from './crc32c.js';
import { ErrorCode } from './error-codes.js';
import { readInt64AsNumber, writeSafeInt64 } from './primitives/int64.js';
import { refusal, type RecordError, type Refusal } from './refusal.js';

export const BATCH_HEADER_SIZE = 61;
/** Bytes before batchLength's count starts: baseOffset (8) + batchLength (4). */
export const BATCH_LOG_OVERHEAD = 12;

const PARTITION_LEADER_EPOCH = 12;
/** Where the magic and lastOffsetDelta lie in a batch, for reads that need no whole header. */
export const MAGIC = 16;
const CRC = 17;
const ATTRIBUTES = 21;
export const LAST_OFFSET_DELTA = 23;
const BASE_TIMESTAMP = 27;
const MAX_TIMESTAMP = 35;
const PRODUCER_ID = 43;
const PRODUCER_EPOCH = 51;
const BASE_SEQUENCE = 53;
export const RECORD_COUNT = 57;

const { CORRUPT_MESSAGE, MESSAGE_TOO_LARGE, INVALID_RECORD, INVALID_TIMESTAMP } = ErrorCode;
/** Attribute bit 3: the batch's time is when the broker appended it (LogAppendTime), not the producer's. */
const LOG_APPEND_TIME = 0x08;
/** A record's or batch's timestamp when it has none. */
const NO_TIMESTAMP = -1;

/**
 * Records that do not hold together, with Kafka's refusal of them. validateProducedBatch returns
 * the refusal; readers of stored batches (compaction, ListOffsets by time, the console) meet it as
 * damage, thrown as a read's damage is.
 */
export class MalformedRecords extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message ?? `error ${refusal.errorCode}`);
  }
}

function malformed(
  errorCode: typeof CORRUPT_MESSAGE | typeof MESSAGE_TOO_LARGE | typeof INVALID_RECORD | typeof INVALID_TIMESTAMP,
  message: string,
  recordErrors?: readonly RecordError[],
): MalformedRecords {
  return new MalformedRecords(refusal(errorCode, message, recordErrors));
}

/** validateProducedBatch's answer for records that may decompress to more than it was told to take on: they are to be checked elsewhere. */
export class CheckElsewhere {
  constructor(
    /** The most they may decompress to, as their framing bounds it. */
    readonly bound: number,
  ) {}
}

/** Kafka's message.timestamp.type values. */
export const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime'] as const;
export type TimestampType = (typeof TIMESTAMP_TYPES)[number];

/** How a partition takes its records' times: Kafka's message.timestamp.* configs. */
export interface TimestampRules {
  readonly type: TimestampType;
  /** How far behind the broker's clock a CreateTime record may be. */
  readonly beforeMaxMs: number;
  /** How far ahead of it. */
  readonly afterMaxMs: number;
}

export const enum Compression {
  None = 0,
  Gzip = 1,
  Snappy = 2,
  Lz4 = 3,
  Zstd = 4,
}

export interface BatchHeader {
  readonly baseOffset: number;
  /** Size of the batch in bytes, header included. */
  readonly size: number;
  readonly magic: number;
  readonly attributes: number;
  readonly lastOffsetDelta: number;
  readonly baseTimestamp: number;
  readonly maxTimestamp: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly recordCount: number;
}

/** Reads the header of the batch at `pos`; the caller ensures 61 bytes are there. */
export function readBatchHeader(buf: Buffer, pos = 0): BatchHeader {
  return {
    baseOffset: readInt64AsNumber(buf, pos),
    size: buf.readInt32BE(pos + 8) + BATCH_LOG_OVERHEAD,
    magic: buf.readInt8(pos + MAGIC),
    attributes: buf.readInt16BE(pos + ATTRIBUTES),
    lastOffsetDelta: buf.readInt32BE(pos + LAST_OFFSET_DELTA),
    baseTimestamp: readInt64AsNumber(buf, pos + BASE_TIMESTAMP),
    maxTimestamp: readInt64AsNumber(buf, pos + MAX_TIMESTAMP),
    producerId: buf.readBigInt64BE(pos + PRODUCER_ID),
    producerEpoch: buf.readInt16BE(pos + PRODUCER_EPOCH),
    baseSequence: buf.readInt32BE(pos + BASE_SEQUENCE),
    recordCount: buf.readInt32BE(pos + RECORD_COUNT),
  };
}

export function compressionOf(attributes: number): Compression {
  return attributes & 0x7;
}

/** The codec a produced batch names, before it is validated; undefined if too short to say. */
export function producedCompression(records: Buffer): Compression | undefined {
  return records.length < BATCH_HEADER_SIZE ? undefined : compressionOf(records.readInt16BE(ATTRIBUTES));
}

/** How many bytes the whole stored batches at the start of `batches` take before the first compressed with `codec`. */
export function bytesBeforeCodec(batches: Buffer, codec: Compression): number {
  let pos = 0;
  while (pos + BATCH_HEADER_SIZE <= batches.length && compressionOf(batches.readInt16BE(pos + ATTRIBUTES)) !== codec) {
    pos += batches.readInt32BE(pos + 8) + BATCH_LOG_OVERHEAD;
  }
  return Math.min(pos, batches.length);
}

export function isTransactional(attributes: number): boolean {
  return (attributes & 0x10) !== 0;
}

export function isControl(attributes: number): boolean {
  return (attributes & 0x20) !== 0;
}

export function isLogAppendTime(attributes: number): boolean {
  return (attributes & LOG_APPEND_TIME) !== 0;
}

/**
 * A stored batch's time, for retention, segment rolls and the time index: its max timestamp, or,
 * where an older brook stored a client's unset one (-1) as sent, its records' base timestamp, the
 * earliest time they carry.
 */
export function batchTime(header: BatchHeader): number {
  return header.maxTimestamp === NO_TIMESTAMP ? header.baseTimestamp : header.maxTimestamp;
}

/** Whether any of the stored batches back to back in `batches` holds a record. */
export function holdsRecords(batches: Buffer): boolean {
  for (let pos = 0; pos + BATCH_HEADER_SIZE <= batches.length; pos += batches.readInt32BE(pos + 8) + BATCH_LOG_OVERHEAD) {
    if (batches.readInt32BE(pos + RECORD_COUNT) > 0) return true;
  }
  return false;
}

/** The offset after the last of the stored batches back to back in `batches` (which holds at least one). */
export function offsetAfter(batches: Buffer): number {
  let pos = 0;
  for (let next = 0; next + BATCH_HEADER_SIZE <= batches.length; next += batches.readInt32BE(next + 8) + BATCH_LOG_OVERHEAD) pos = next;
  return readInt64AsNumber(batches, pos) + batches.readInt32BE(pos + LAST_OFFSET_DELTA) + 1;
}

/** baseOffset and partitionLeaderEpoch lie outside the CRC: the broker may set them. */
export function assignBaseOffset(buf: Buffer, pos: number, baseOffset: number): void {
  writeSafeInt64(buf, baseOffset, pos);
}

export function assignPartitionLeaderEpoch(buf: Buffer, pos: number, epoch: number): void {
  buf.writeInt32BE(epoch, pos + PARTITION_LEADER_EPOCH);
}

/** Verifies a checksum of the stored batch at `pos`, as recovery does; no record walk. */
export function crcMatches(buf: Buffer, pos: number, size: number): boolean {
  return crc32c(buf.subarray(pos + ATTRIBUTES, pos + size)) === buf.readUInt32BE(pos + CRC);
}

/**
 * Checks that `records` (a Produce partition's records field) holds exactly one well-formed
 * v2 batch with every record's time within `rules` at `now`, and returns its header, or the
 * Refusal naming what is wrong. A compressed batch is decompressed to walk its records, into at
 * most `room.bytes`, which it then takes from `room`. As Kafka's `LogValidator`, the header's max
 * timestamp is set to what the records say (a client may leave it -1), or to `now` under
 * LogAppendTime, with the CRC to match; nothing else of the batch changes. Records that may
 * decompress to more than `decompressNow` bytes are not decompressed: CheckElsewhere is
 * answered, after every check made before decompression.
 */
export function validateProducedBatch(
  records: Buffer,
  room: DecompressionRoom,
  rules: TimestampRules,
  now: number,
  keysRequiredIn?: string,
): BatchHeader | Refusal;
export function validateProducedBatch(
  records: Buffer,
  room: DecompressionRoom,
  rules: TimestampRules,
  now: number,
  keysRequiredIn: string | undefined,
  decompressNow: number,
): BatchHeader | Refusal | CheckElsewhere;
export function validateProducedBatch(
  records: Buffer,
  room: DecompressionRoom,
  rules: TimestampRules,
  now: number,
  keysRequiredIn?: string,
  decompressNow = Infinity,
): BatchHeader | Refusal | CheckElsewhere {
  try {
    return checkProducedBatch(records, room, rules, now, keysRequiredIn, decompressNow);
  } catch (err) {
    if (err instanceof MalformedRecords) return err.refusal;
    if (err instanceof LargePayload) return new CheckElsewhere(err.bound);
    throw err;
  }
}

function checkProducedBatch(
  records: Buffer,
  room: DecompressionRoom,
  rules: TimestampRules,
  now: number,
  keysRequiredIn: string | undefined,
  decompressNow: number,
): BatchHeader {
  if (records.length < BATCH_HEADER_SIZE) {
    throw malformed(CORRUPT_MESSAGE, `records hold ${records.length} bytes, less than a batch header`);
  }
  const magic = records.readInt8(MAGIC);
  if (magic !== 2) throw malformed(INVALID_RECORD, `record batch magic ${magic}: only magic 2 is accepted`);
  const header = readBatchHeader(records, 0);
  if (header.size < BATCH_HEADER_SIZE || header.size > records.length) {
    throw malformed(CORRUPT_MESSAGE, `batch length ${header.size - BATCH_LOG_OVERHEAD} does not fit the ${records.length} bytes sent`);
  }
  if (header.size !== records.length) {
    throw malformed(INVALID_RECORD, 'a produce request must carry exactly one record batch per partition');
  }
  if (!crcMatches(records, 0, header.size)) throw malformed(CORRUPT_MESSAGE, 'record batch CRC does not match its contents');
  if (header.recordCount < 1) throw malformed(INVALID_RECORD, `record count ${header.recordCount} is not positive`);
  if (header.lastOffsetDelta !== header.recordCount - 1) {
    throw malformed(INVALID_RECORD, `lastOffsetDelta ${header.lastOffsetDelta} does not match ${header.recordCount} records`);
  }
  if (isControl(header.attributes)) throw malformed(INVALID_RECORD, 'clients may not produce control batches');
  if (header.producerId >= 0n && (header.baseSequence < 0 || header.producerEpoch < 0)) {
    throw malformed(INVALID_RECORD, 'an idempotent batch needs a base sequence and epoch of at least 0');
  }
  const codec = compressionOf(header.attributes);
  if (codec > Compression.Zstd) throw malformed(INVALID_RECORD, `unknown compression codec ${codec}`);
  const body =
    codec === Compression.None
      ? { buf: records, start: BATCH_HEADER_SIZE }
      : { buf: decompressRecords(codec, records.subarray(BATCH_HEADER_SIZE), room, decompressNow), start: 0 };
  walkRecords(body.buf, body.start, header.recordCount);
  if (keysRequiredIn !== undefined && walk.nullKeys > 0) refuseKeyless(body, header.recordCount, keysRequiredIn);
  return stampTimes(records, header, body, rules, now);
}

/** A compacted partition (named as Kafka names it) keeps the latest record per key: records without one are refused, each named, as Kafka's `LogValidator.validateKey` does. */
function refuseKeyless(body: RecordsBody, count: number, partition: string): never {
  const recordErrors: RecordError[] = [];
  const message = `Compacted topic cannot accept message without key in topic partition ${partition}.`;
  walkRecords(body.buf, body.start, count, { keyless: (batchIndex) => recordErrors.push({ batchIndex, message }) });
  const shown = recordErrors.slice(0, 3).map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.message}')`);
  throw malformed(
    INVALID_RECORD,
    `One or more records have been rejected due to ${recordErrors.length} record errors in total, and only showing the first three errors at most: [${shown.join(', ')}]`,
    recordErrors,
  );
}

/** The records of a batch, uncompressed: from `start` to the end of `buf`. */
interface RecordsBody {
  readonly buf: Buffer;
  readonly start: number;
}

/** Checks the times of a batch just walked and sets its max timestamp (and CRC) as Kafka's `LogValidator` does. */
function stampTimes(batch: Buffer, header: BatchHeader, body: RecordsBody, rules: TimestampRules, now: number): BatchHeader {
  if (isLogAppendTime(header.attributes)) {
    const recordErrors = Array.from({ length: header.recordCount }, (_, batchIndex) => ({
      batchIndex,
      message: 'a producer may not mark its batch LogAppendTime',
    }));
    throw malformed(INVALID_TIMESTAMP, 'the batch claims LogAppendTime, which only the broker sets', recordErrors);
  }
  let attributes = header.attributes;
  let maxTimestamp: number;
  if (rules.type === 'LogAppendTime') {
    attributes |= LOG_APPEND_TIME;
    maxTimestamp = now;
  } else {
    const earliest = now - rules.beforeMaxMs;
    const latest = now + rules.afterMaxMs;
    // The walk's extremes flag a batch to look at record by record: a record without a time (-1) is never out of range.
    if (header.baseTimestamp + walk.minDelta < earliest || header.baseTimestamp + walk.maxDelta > latest) {
      const recordErrors: RecordError[] = [];
      walkRecords(body.buf, body.start, header.recordCount, {
        visit: (batchIndex, timestampDelta) => {
          const timestamp = header.baseTimestamp + timestampDelta;
          if (timestamp !== NO_TIMESTAMP && (timestamp < earliest || timestamp > latest)) {
            recordErrors.push({
              batchIndex,
              message: `timestamp ${timestamp} of record ${batchIndex} is outside [${earliest}, ${latest}], the broker's clock less message.timestamp.before.max.ms and plus message.timestamp.after.max.ms`,
            });
          }
          return false;
        },
      });
      if (recordErrors.length > 0)
        throw malformed(INVALID_TIMESTAMP, `${recordErrors.length} of ${header.recordCount} records have timestamps out of range`, recordErrors);
    }
    maxTimestamp = Math.max(NO_TIMESTAMP, header.baseTimestamp + walk.maxDelta);
  }
  if (attributes === header.attributes && maxTimestamp === header.maxTimestamp) return header;
  batch.writeInt16BE(attributes, ATTRIBUTES);
  batch.writeBigInt64BE(BigInt(maxTimestamp), MAX_TIMESTAMP);
  batch.writeUInt32BE(crc32c(batch.subarray(ATTRIBUTES, header.size)), CRC);
  return { ...header, attributes, maxTimestamp };
}

/**
 * What the records of one request's compressed batches may still take once decompressed. Shared
 * by the request's batches, so that many small bombs cost no more than one.
 */
export interface DecompressionRoom {
  bytes: number;
}

const DECOMPRESS = {
  [Compression.Gzip]: gunzip,
  [Compression.Snappy]: unsnappy,
  [Compression.Lz4]: unlz4,
  [Compression.Zstd]: unzstd,
};

/**
 * A payload its codec cannot open is INVALID_RECORD, as records that do not parse are: a batch
 * whose CRC matches was sent this way, so retrying cannot help (Kafka's `ReplicaManager.appendToLocalLog` answers most such with
 * UNKNOWN_SERVER_ERROR, an exception it does not classify). Records too large once decompressed
 * are MESSAGE_TOO_LARGE, the code for a batch larger than the broker accepts, on which Java
 * producers split the batch and send the halves.
 */
export function decompressRecords(codec: Exclude<Compression, Compression.None>, payload: Buffer, room: DecompressionRoom, decompressNow = Infinity): Buffer {
  try {
    const records = DECOMPRESS[codec](payload, room.bytes, decompressNow);
    room.bytes -= records.length;
    return records;
  } catch (err) {
    if (err instanceof CorruptPayload) throw malformed(INVALID_RECORD, err.message);
    if (err instanceof PayloadTooLarge) throw malformed(MESSAGE_TOO_LARGE, err.message);
    throw err;
  }
}

/**
 * Whether the batch may hold a record at offset `from` or later whose timestamp is at least
 * `timestamp` (ListOffsets by time). A max timestamp left unset is no bound: the records say.
 */
export function batchMayReach(header: BatchHeader, timestamp: number, from: number): boolean {
  return header.baseOffset + header.lastOffsetDelta >= from && (header.maxTimestamp === NO_TIMESTAMP || header.maxTimestamp >= timestamp);
}

/**
 * The first record at offset `from` or later, in the stored batch at the start of `batch`, whose
 * timestamp is at least `timestamp` (ListOffsets by time). A compressed batch is not opened: its
 * base offset (or `from`, if later) and time stand for its records, as they do in a LogAppendTime
 * batch, whose records all have its time.
 */
export function firstRecordAtOrAfter(batch: Buffer, timestamp: number, from = 0): { offset: number; timestamp: number } | undefined {
  const header = readBatchHeader(batch, 0);
  if (!batchMayReach(header, timestamp, from)) return undefined;
  if (compressionOf(header.attributes) !== Compression.None || isLogAppendTime(header.attributes)) {
    return batchTime(header) < timestamp ? undefined : { offset: Math.max(header.baseOffset, from), timestamp: batchTime(header) };
  }
  let found: { offset: number; timestamp: number } | undefined;
  walkRecords(batch.subarray(0, header.size), BATCH_HEADER_SIZE, header.recordCount, {
    sparse: true,
    visit: (offsetDelta, timestampDelta) => {
      const recordTimestamp = header.baseTimestamp + timestampDelta;
      if (recordTimestamp < timestamp || header.baseOffset + offsetDelta < from) return false;
      found = { offset: header.baseOffset + offsetDelta, timestamp: recordTimestamp };
      return true;
    },
  });
  return found;
}

/**
 * The records of a stored batch, decompressed if need be (into at most `limit` bytes), each as
 * compaction judges it; MalformedRecords where they do not hold together.
 */
export function storedRecords(batch: Buffer, limit: number): StoredRecords {
  const header = readBatchHeader(batch);
  const codec = compressionOf(header.attributes);
  const payload = batch.subarray(BATCH_HEADER_SIZE, header.size);
  const body = codec === Compression.None ? payload : decompressRecords(codec, payload, { bytes: limit });
  const records = new StoredRecords(body, header.recordCount);
  walkRecords(body, 0, header.recordCount, {
    sparse: true,
    each: (delta, start, end, keyStart, keyEnd, tombstone) => records.push(delta, start, end, keyStart, keyEnd, tombstone),
  });
  return records;
}

/**
 * The stored batch `batch` holding only `records` (whole records of its body, in order),
 * uncompressed: its header stays as it was (base offset, last offset delta, times, producer id,
 * epoch and base sequence, from which producer state is replayed), but for the length, the
 * record count, the codec and the CRC. No records at all is the empty batch Kafka's cleaner keeps
 * for a producer's sake.
 */
export function batchOfRecords(batch: Buffer, records: readonly Buffer[]): Buffer {
  let size = BATCH_HEADER_SIZE;
  for (const record of records) size += record.length;
  const out = Buffer.allocUnsafe(size);
  batch.copy(out, 0, 0, BATCH_HEADER_SIZE);
  out.writeInt32BE(size - BATCH_LOG_OVERHEAD, 8);
  out.writeInt16BE(batch.readInt16BE(ATTRIBUTES) & ~0x7, ATTRIBUTES);
  out.writeInt32BE(records.length, RECORD_COUNT);
  let pos = BATCH_HEADER_SIZE;
  for (const record of records) pos += record.copy(out, pos);
  out.writeUInt32BE(crc32c(out.subarray(ATTRIBUTES)), CRC);
  return out;
}

/**
 * Where the record walk is, the smallest and largest timestamp delta it has seen, how many
 * records without a key and where the last bytes field skipped began: one
 * module-level cursor rather than one per call, as the walk is the produce path's tightest loop
 * (47 → 31 ns per record) and is never re-entered.
 */
const walk = { pos: 0, minDelta: 0, maxDelta: 0, nullKeys: 0, fieldStart: 0 };

/** What compaction needs of each record. */
const SPAN_FIELDS = 6;
const [OFFSET_DELTA, START, END, KEY_START, KEY_END, TOMBSTONE] = [0, 1, 2, 3, 4, 5];

/**
 * A batch's records as compaction judges them, in one column of numbers (no object per record:
 * the cleaner walks millions): each record's offset delta, where its bytes (its length prefix
 * first) begin and end in `body`, where its key begins (-1: none) and ends, whether its value is
 * null (a tombstone).
 */
export class StoredRecords {
  private readonly spans: Int32Array;
  private filled = 0;

  constructor(
    readonly body: Buffer,
    count: number,
  ) {
    this.spans = new Int32Array(count * SPAN_FIELDS);
  }

  /** Bytes the spans take. */
  get spanBytes(): number {
    return this.spans.byteLength;
  }

  get count(): number {
    return this.filled;
  }

  push(offsetDelta: number, start: number, end: number, keyStart: number, keyEnd: number, tombstone: boolean): void {
    const at = this.filled++ * SPAN_FIELDS;
    this.spans[at + OFFSET_DELTA] = offsetDelta;
    this.spans[at + START] = start;
    this.spans[at + END] = end;
    this.spans[at + KEY_START] = keyStart;
    this.spans[at + KEY_END] = keyEnd;
    this.spans[at + TOMBSTONE] = tombstone ? 1 : 0;
  }

  offsetDelta(i: number): number {
    return this.spans[i * SPAN_FIELDS + OFFSET_DELTA]!;
  }

  /** The record's bytes, its length prefix first (a view). */
  record(i: number): Buffer {
    return this.body.subarray(this.spans[i * SPAN_FIELDS + START], this.spans[i * SPAN_FIELDS + END]);
  }

  hasKey(i: number): boolean {
    return this.spans[i * SPAN_FIELDS + KEY_START]! >= 0;
  }

  keyStart(i: number): number {
    return this.spans[i * SPAN_FIELDS + KEY_START]!;
  }

  keyEnd(i: number): number {
    return this.spans[i * SPAN_FIELDS + KEY_END]!;
  }

  tombstone(i: number): boolean {
    return this.spans[i * SPAN_FIELDS + TOMBSTONE] === 1;
  }
}

interface RecordVisitors {
  /** Sees each record's offset and timestamp deltas, and may stop the walk by returning true. */
  readonly visit?: (offsetDelta: number, timestampDelta: number) => boolean;
  /** Told each record without a key. */
  readonly keyless?: (offsetDelta: number) => void;
  /** Sees each whole record: where its bytes begin and end, where its key begins (-1: none) and ends, whether its value is null. */
  readonly each?: (offsetDelta: number, start: number, end: number, keyStart: number, keyEnd: number, tombstone: boolean) => void;
  /** Offset deltas need only grow, as in a batch compaction kept some records of; produced ones run 0, 1, 2, … */
  readonly sparse?: boolean;
}

/**
 * Steps through uncompressed records, from `start` to the end of `buf`, by their length prefixes
 * and checks each one's layout, telling `visitors` what it finds.
 */
function walkRecords(buf: Buffer, start: number, count: number, visitors: RecordVisitors = {}): void {
  const { visit, keyless, each, sparse = false } = visitors;
  walk.pos = start;
  let previousDelta = -1;
  walk.nullKeys = 0;
  walk.minDelta = Infinity;
  walk.maxDelta = -Infinity;
  for (let i = 0; i < count; i++) {
    if (walk.pos >= buf.length) throw malformed(INVALID_RECORD, `batch claims ${count} records but holds ${i}`);
    const recordStart = walk.pos;
    const length = readVarint(buf, buf.length);
    const end = walk.pos + length;
    if (length < 0 || end > buf.length) throw malformed(INVALID_RECORD, `record ${i} length ${length} runs past the batch`);
    walk.pos++; // attributes
    const timestampDelta = readVarint(buf, end); // a varlong, exact while under 2^53
    const offsetDelta = readVarint(buf, end);
    if (timestampDelta < walk.minDelta) walk.minDelta = timestampDelta;
    if (timestampDelta > walk.maxDelta) walk.maxDelta = timestampDelta;
    if (sparse ? offsetDelta <= previousDelta : offsetDelta !== i) throw malformed(INVALID_RECORD, `record ${i} has offset delta ${offsetDelta}`);
    previousDelta = offsetDelta;
    if (visit?.(offsetDelta, timestampDelta)) return;
    const hasKey = !skipBytes(buf, end, true);
    if (!hasKey) {
      walk.nullKeys++;
      keyless?.(i);
    }
    const keyStart = hasKey ? walk.fieldStart : -1;
    const keyEnd = walk.pos;
    const tombstone = skipBytes(buf, end, true); // value
    const headers = readVarint(buf, end);
    if (headers < 0) throw malformed(INVALID_RECORD, `record ${i} has ${headers} headers`);
    for (let h = 0; h < headers; h++) {
      skipBytes(buf, end, false);
      skipBytes(buf, end, true);
    }
    if (walk.pos !== end) throw malformed(INVALID_RECORD, `record ${i} fields do not fill its length ${length}`);
    each?.(offsetDelta, recordStart, end, keyStart, keyEnd, tombstone);
  }
  if (walk.pos !== buf.length) throw malformed(INVALID_RECORD, `batch holds bytes after its ${count} records`);
}

/** A zigzag varint of up to 10 bytes (varlongs included); values past 2^53 lose their low bits. */
function readVarint(buf: Buffer, end: number): number {
  // Up to four bytes in 32-bit integer arithmetic: nearly every length, delta and count.
  let zigzag = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (walk.pos >= end) throw malformed(INVALID_RECORD, 'a record varint runs past its record');
    const byte = buf[walk.pos++]!;
    zigzag |= (byte & 0x7f) << shift;
    if (byte < 0x80) return (zigzag >>> 1) ^ -(zigzag & 1);
  }
  return readVarintRest(buf, end, zigzag);
}

/** The rest of a varint longer than four bytes, whose first 28 bits are `low`, in floating point. */
function readVarintRest(buf: Buffer, end: number, low: number): number {
  let value = low;
  let scale = 2 ** 28;
  for (let i = 4; i < 10; i++) {
    if (walk.pos >= end) throw malformed(INVALID_RECORD, 'a record varint runs past its record');
    const byte = buf[walk.pos++]!;
    value += (byte & 0x7f) * scale;
    // The sign is the lowest bit, which `value` loses past 2^53: it is read from `low`.
    if ((byte & 0x80) === 0) return (low & 1) === 0 ? value / 2 : -(value + 1) / 2;
    scale *= 128;
  }
  throw malformed(INVALID_RECORD, 'a record varint is longer than 10 bytes');
}

/** Skips a bytes field; whether it was null. */
function skipBytes(buf: Buffer, end: number, nullable: boolean): boolean {
  const length = readVarint(buf, end);
  if (length === -1 && nullable) return true;
  if (length < 0 || walk.pos + length > end) throw malformed(INVALID_RECORD, `a record field length ${length} is invalid`);
  walk.fieldStart = walk.pos;
  walk.pos += length;
  return false;
}

/** What a control batch marks: the end of its producer's transaction on the partition (Kafka's ControlRecordType). */
export type Marker = 'abort' | 'commit';

const CONTROL_BATCH_ATTRIBUTES = 0x30; // transactional | control
const CONTROL_RECORD_VERSION = 0;
/** The one record of a marker: length, attributes, timestamp and offset deltas, key (version, type), value (version, coordinator epoch), no headers. */
const MARKER_RECORD_SIZE = 17;

/**
 * A COMMIT or ABORT marker as Kafka's coordinator writes one (`MemoryRecords.withEndTransactionMarker`): a control batch of the producer's
 * id and epoch holding one record whose key is (version 0, type 1 or 0) and whose value is
 * (version 0, coordinator epoch). Its base offset is set when it is appended.
 */
export function markerBatch(producerId: bigint, producerEpoch: number, marker: Marker, coordinatorEpoch: number, now: number): Buffer {
  const batch = Buffer.alloc(BATCH_HEADER_SIZE + MARKER_RECORD_SIZE);
  batch.writeInt32BE(batch.length - BATCH_LOG_OVERHEAD, 8);
  batch.writeInt8(2, MAGIC);
  batch.writeInt16BE(CONTROL_BATCH_ATTRIBUTES, ATTRIBUTES);
  batch.writeBigInt64BE(BigInt(now), BASE_TIMESTAMP);
  batch.writeBigInt64BE(BigInt(now), MAX_TIMESTAMP);
  batch.writeBigInt64BE(producerId, PRODUCER_ID);
  batch.writeInt16BE(producerEpoch, PRODUCER_EPOCH);
  batch.writeInt32BE(-1, BASE_SEQUENCE);
  batch.writeInt32BE(1, RECORD_COUNT);
  let pos = BATCH_HEADER_SIZE;
  // Varints zigzag-encoded: length 16, attributes 0, deltas 0, key length 4, value length 6, no headers.
  pos = batch.writeUInt8((MARKER_RECORD_SIZE - 1) * 2, pos);
  pos += 3;
  pos = batch.writeUInt8(4 * 2, pos);
  pos = batch.writeInt16BE(CONTROL_RECORD_VERSION, pos);
  pos = batch.writeInt16BE(marker === 'commit' ? 1 : 0, pos);
  pos = batch.writeUInt8(6 * 2, pos);
  pos = batch.writeInt16BE(CONTROL_RECORD_VERSION, pos);
  batch.writeInt32BE(coordinatorEpoch, pos);
  batch.writeUInt32BE(crc32c(batch.subarray(ATTRIBUTES)), CRC);
  return batch;
}

/** What the control batch at `pos` of `buf` (whole there) marks; undefined for a record that is no marker. */
export function markerOf(buf: Buffer, pos: number, header: BatchHeader): Marker | undefined {
  const end = pos + header.size;
  walk.pos = pos + BATCH_HEADER_SIZE;
  try {
    const length = readVarint(buf, end);
    const recordEnd = walk.pos + length;
    walk.pos++; // attributes
    readVarint(buf, recordEnd); // timestamp delta
    readVarint(buf, recordEnd); // offset delta
    if (readVarint(buf, recordEnd) < 4 || walk.pos + 4 > recordEnd) return undefined;
    const type = buf.readInt16BE(walk.pos + 2);
    return type === 1 ? 'commit' : type === 0 ? 'abort' : undefined;
  } catch (err) {
    if (err instanceof MalformedRecords) return undefined;
    throw err;
  }
}
