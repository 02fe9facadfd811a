/** RecordBatch v2 bytes whose records are compressed by real encoders of each codec Kafka producers use, for tests. */
import { gzipSync } from 'node:zlib';
import { Encoder as ZstdEncoder } from '@toondepauw/node-zstd';
import { compressFrameSync } from 'lz4-napi';
import { compressSync as snappyCompress } from 'snappy';
import { crc32c } from '../../src/protocol/crc32c.js';
import { encodeRecord, type TestRecord } from './batch.js';

export interface Codec {
  readonly name: string;
  /** The codec id in a batch's attributes. */
  readonly id: number;
  readonly compress: (raw: Buffer) => Buffer;
}

const zstd = new ZstdEncoder(3);

/** snappy-java's stream (as Java producers send it): its header, then [int32 length][raw snappy block] per 32 KiB. */
export function snappyJava(raw: Buffer): Buffer {
  const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
  const chunks: Buffer[] = [header];
  for (let at = 0; at < raw.length; at += 32 * 1024) {
    const block = snappyCompress(raw.subarray(at, at + 32 * 1024));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(block.length);
    chunks.push(length, block);
  }
  return Buffer.concat(chunks);
}

export const codecs: readonly Codec[] = [
  { name: 'gzip', id: 1, compress: (raw) => gzipSync(raw) },
  { name: 'snappy', id: 2, compress: (raw) => snappyCompress(raw) },
  { name: 'snappy-java', id: 2, compress: snappyJava },
  { name: 'lz4', id: 3, compress: (raw) => compressFrameSync(raw) },
  { name: 'zstd', id: 4, compress: (raw) => zstd.encodeSync(raw) },
];

/** The records field of a batch as producers lay it out, before compression. */
export function rawRecords(records: readonly TestRecord[]): Buffer {
  return Buffer.concat(records.map((r, i) => encodeRecord(r, i)));
}

/** A batch of `count` records with `payload` after the header, under codec `codecId`, CRC sealed. */
export function sealBatch(codecId: number, payload: Buffer, count: number, lastOffsetDelta = count - 1): Buffer {
  const header = Buffer.alloc(61);
  const now = BigInt(Date.now());
  header.writeInt32BE(61 - 12 + payload.length, 8);
  header.writeInt32BE(-1, 12);
  header.writeInt8(2, 16);
  header.writeInt16BE(codecId, 21);
  header.writeInt32BE(lastOffsetDelta, 23);
  header.writeBigInt64BE(now, 27);
  header.writeBigInt64BE(now, 35);
  header.writeBigInt64BE(-1n, 43);
  header.writeInt16BE(-1, 51);
  header.writeInt32BE(-1, 53);
  header.writeInt32BE(count, 57);
  const batch = Buffer.concat([header, payload]);
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
  return batch;
}

export function compressedBatch(records: readonly TestRecord[], codec: Codec): Buffer {
  return sealBatch(codec.id, codec.compress(rawRecords(records)), records.length);
}
