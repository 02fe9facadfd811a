/**
 * Stored batches opened into their records, for reading them one by one (the web console's
 * message browser); the broker's own paths walk records without decoding them.
 */
import { ProtocolError } from './primitives/errors.js';
import { Reader } from './primitives/reader.js';
import { Writer } from './primitives/writer.js';
import { crc32c } from './crc32c.js';
import {
  BATCH_HEADER_SIZE,
  BATCH_LOG_OVERHEAD,
  Compression,
  compressionOf,
  decompressRecords,
  isControl,
  isLogAppendTime,
  markerOf,
  readBatchHeader,
  MalformedRecords,
  type BatchHeader,
  type Marker,
} from './record-batch.js';
import { ErrorCode } from './error-codes.js';
import { refusal } from './refusal.js';

export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

export interface StoredRecord {
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
  /** The header of the batch it was stored in: producer id, epoch, base sequence. */
  readonly batch: BatchHeader;
}

/** A record to store, as a plain (non-idempotent) producer sends it. */
export interface NewRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

/**
 * The records from offset `from` on, at most `max`, in the whole stored batches at the start of
 * `batches` (control batches left out); compressed ones are opened within `decompressBytes`.
 */
export function readStoredRecords(batches: Buffer, from: number, max: number, decompressBytes: number): StoredRecord[] {
  const records: StoredRecord[] = [];
  const room = { bytes: decompressBytes };
  for (let pos = 0; pos + BATCH_HEADER_SIZE <= batches.length && records.length < max;) {
    const header = readBatchHeader(batches, pos);
    if (pos + header.size > batches.length) break;
    if (!isControl(header.attributes) && header.baseOffset + header.lastOffsetDelta >= from) {
      const codec = compressionOf(header.attributes);
      const body = batches.subarray(pos + BATCH_HEADER_SIZE, pos + header.size);
      const raw = codec === Compression.None ? body : decompressRecords(codec, body, room);
      readBatchRecords(raw, header, from, max, records);
    }
    pos += header.size;
  }
  return records;
}

/** A COMMIT or ABORT marker as stored: the control batch ending its producer's transaction on the partition. */
export interface StoredMarker {
  readonly offset: number;
  readonly timestamp: number;
  readonly marker: Marker;
  readonly batch: BatchHeader;
}

/** The markers from offset `from` on in the whole stored batches at the start of `batches`. */
export function readStoredMarkers(batches: Buffer, from: number): StoredMarker[] {
  const markers: StoredMarker[] = [];
  for (let pos = 0; pos + BATCH_HEADER_SIZE <= batches.length;) {
    const header = readBatchHeader(batches, pos);
    if (pos + header.size > batches.length) break;
    const marker = isControl(header.attributes) && header.baseOffset >= from ? markerOf(batches, pos, header) : undefined;
    if (marker !== undefined) markers.push({ offset: header.baseOffset, timestamp: header.maxTimestamp, marker, batch: header });
    pos += header.size;
  }
  return markers;
}

function readBatchRecords(raw: Buffer, batch: BatchHeader, from: number, max: number, into: StoredRecord[]): void {
  const r = new Reader(raw);
  try {
    for (let i = 0; i < batch.recordCount && into.length < max; i++) {
      const end = r.readVarint() + r.offset;
      r.skip(1); // attributes
      const timestampDelta = Number(r.readVarlong());
      const offset = batch.baseOffset + r.readVarint();
      const key = varBytes(r);
      const value = varBytes(r);
      const headers = Array.from({ length: r.readVarint() }, () => ({ key: (varBytes(r) ?? Buffer.alloc(0)).toString('utf8'), value: varBytes(r) }));
      if (r.offset !== end) throw new ProtocolError(`record at offset ${offset} does not fill its length`);
      const timestamp = isLogAppendTime(batch.attributes) ? batch.maxTimestamp : batch.baseTimestamp + timestampDelta;
      if (offset >= from) into.push({ offset, timestamp, key, value, headers, batch });
    }
  } catch (err) {
    if (err instanceof ProtocolError) throw new MalformedRecords(refusal(ErrorCode.CORRUPT_MESSAGE, err.message));
    throw err;
  }
}

function varBytes(r: Reader): Buffer | null {
  const length = r.readVarint();
  if (length < 0) return null;
  const start = r.offset;
  r.skip(length);
  return r.buf.subarray(start, start + length);
}

/** One uncompressed batch holding `records`, stamped `timestamp`, without a producer id. */
export function encodeRecordBatch(records: readonly NewRecord[], timestamp: number): Buffer {
  const body = new Writer();
  records.forEach((record, i) => {
    const w = new Writer();
    w.writeInt8(0);
    w.writeVarlong(0n);
    w.writeVarint(i);
    writeVarBytes(w, record.key);
    writeVarBytes(w, record.value);
    w.writeVarint(record.headers.length);
    for (const h of record.headers) {
      writeVarBytes(w, Buffer.from(h.key, 'utf8'));
      writeVarBytes(w, h.value);
    }
    const bytes = w.finish();
    body.writeVarint(bytes.length);
    body.writeBuffer(bytes);
  });
  const payload = body.finish();
  const batch = Buffer.alloc(BATCH_HEADER_SIZE + payload.length);
  batch.writeInt32BE(batch.length - BATCH_LOG_OVERHEAD, 8);
  batch.writeInt8(2, 16);
  batch.writeInt32BE(records.length - 1, 23);
  batch.writeBigInt64BE(BigInt(timestamp), 27);
  batch.writeBigInt64BE(BigInt(timestamp), 35);
  batch.writeBigInt64BE(-1n, 43);
  batch.writeInt16BE(-1, 51);
  batch.writeInt32BE(-1, 53);
  batch.writeInt32BE(records.length, 57);
  payload.copy(batch, BATCH_HEADER_SIZE);
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
  return batch;
}

function writeVarBytes(w: Writer, bytes: Buffer | null): void {
  if (bytes === null) return w.writeVarint(-1);
  w.writeVarint(bytes.length);
  w.writeBuffer(bytes);
}
