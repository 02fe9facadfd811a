/** Builds RecordBatch v2 bytes the way a producer does, for tests. */
import { gzipSync } from 'node:zlib';
import { crc32c } from '../../src/protocol/crc32c.js';

export interface TestRecord {
  readonly key?: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: readonly [string, Buffer][];
  /** Milliseconds after the batch's base timestamp. */
  readonly timestampDelta?: number;
}

export interface BatchOptions {
  readonly producerId?: bigint;
  readonly producerEpoch?: number;
  readonly baseSequence?: number;
  readonly baseTimestamp?: number;
  readonly gzip?: boolean;
  readonly transactional?: boolean;
}

function varint(n: number): Buffer {
  let z = n >= 0 ? n * 2 : -n * 2 - 1;
  const out: number[] = [];
  while (z >= 0x80) {
    out.push((z % 128) | 0x80);
    z = Math.floor(z / 128);
  }
  out.push(z);
  return Buffer.from(out);
}

function sized(b: Buffer | null | undefined): Buffer[] {
  return b == null ? [varint(-1)] : [varint(b.length), b];
}

export function encodeRecord(record: TestRecord, offsetDelta: number): Buffer {
  const headers = record.headers ?? [];
  const body = Buffer.concat([
    Buffer.from([0]),
    varint(record.timestampDelta ?? 0),
    varint(offsetDelta),
    ...sized(record.key),
    ...sized(record.value),
    varint(headers.length),
    ...headers.flatMap(([k, v]) => [...sized(Buffer.from(k)), ...sized(v)]),
  ]);
  return Buffer.concat([varint(body.length), body]);
}

export function buildBatch(records: readonly TestRecord[], options: BatchOptions = {}): Buffer {
  const rawRecords = Buffer.concat(records.map((r, i) => encodeRecord(r, i)));
  const payload = options.gzip ? gzipSync(rawRecords) : rawRecords;
  const header = Buffer.alloc(61);
  const timestamp = options.baseTimestamp ?? Date.now();
  const maxDelta = Math.max(0, ...records.map((r) => r.timestampDelta ?? 0));
  header.writeBigInt64BE(0n, 0);
  header.writeInt32BE(61 - 12 + payload.length, 8);
  header.writeInt32BE(-1, 12);
  header.writeInt8(2, 16);
  header.writeInt16BE((options.gzip ? 1 : 0) | (options.transactional ? 0x10 : 0), 21);
  header.writeInt32BE(records.length - 1, 23);
  header.writeBigInt64BE(BigInt(timestamp), 27);
  header.writeBigInt64BE(BigInt(timestamp + maxDelta), 35);
  header.writeBigInt64BE(options.producerId ?? -1n, 43);
  header.writeInt16BE(options.producerEpoch ?? -1, 51);
  header.writeInt32BE(options.baseSequence ?? -1, 53);
  header.writeInt32BE(records.length, 57);
  const batch = Buffer.concat([header, payload]);
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
  return batch;
}

/** `count` records with small distinct values. */
export function valuesBatch(count: number, options: BatchOptions = {}, prefix = 'v'): Buffer {
  return buildBatch(
    Array.from({ length: count }, (_, i) => ({ value: Buffer.from(`${prefix}${i}`) })),
    options,
  );
}
