/**
 * Records appended to a file, each framed so that a reader finds where intact records end
 * (a write cut off by a crash, or damage), big-endian:
 *
 *   body length (u32) | crc32c of the body (u32) | body
 */
import { crc32c } from '../protocol/crc32c.js';
import { ProtocolError } from '../protocol/primitives/errors.js';
import { Reader } from '../protocol/primitives/reader.js';

const FRAME_HEADER_SIZE = 8;

/** Fills in the frame header of `record`, whose body follows the 8 bytes left for it. */
export function sealFrame(record: Buffer): Buffer {
  const body = record.subarray(FRAME_HEADER_SIZE);
  record.writeUInt32BE(body.length, 0);
  record.writeUInt32BE(crc32c(body), 4);
  return record;
}

/** What reading a file's records found. */
export interface RecordScan {
  /** Bytes of whole, intact records from the start. */
  readonly end: number;
  /** Why the bytes after `end` are not a record; absent when there are none. */
  readonly problem?: string;
}

/** Hands each intact record's body and position to `onBody`, in order, up to the first record that is cut short or fails its CRC. */
export function scanFrames(bytes: Buffer, onBody: (body: Buffer, position: number) => void): RecordScan {
  let position = 0;
  while (position < bytes.length) {
    const left = bytes.length - position;
    if (left < FRAME_HEADER_SIZE) return { end: position, problem: `${left} bytes, too few for a record header` };
    const size = bytes.readUInt32BE(position);
    if (size > left - FRAME_HEADER_SIZE) return { end: position, problem: `a record of ${size} bytes with ${left - FRAME_HEADER_SIZE} left` };
    const body = bytes.subarray(position + FRAME_HEADER_SIZE, position + FRAME_HEADER_SIZE + size);
    if (crc32c(body) !== bytes.readUInt32BE(position + 4)) return { end: position, problem: 'a record whose CRC does not match' };
    onBody(body, position);
    position += FRAME_HEADER_SIZE + size;
  }
  return { end: position };
}

/**
 * Hands each intact record, decoded, to `onRecord`, in order, as scanFrames finds them. A record
 * that checks out but does not decode whole throws: it was written by something else, and
 * cutting it would lose what it holds.
 */
export function scanDecoded<T>(bytes: Buffer, decode: (r: Reader) => T, onRecord: (record: T) => void): RecordScan {
  return scanFrames(bytes, (body, position) => {
    const r = new Reader(body);
    let record: T;
    try {
      record = decode(r);
      if (r.remaining > 0) throw new ProtocolError(`${r.remaining} bytes after the record`);
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err;
      throw new Error(`a record at position ${position} checks out but is not one brook writes: ${err.message}`);
    }
    onRecord(record);
  });
}
