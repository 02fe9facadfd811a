/**
 * Damage a read finds in a segment: bytes that do not hold together where a batch should start.
 * Recovery checks only what follows the recovery point, so older segments are trusted until read;
 * a read then serves the intact batches before the damage and fails at it, never quietly.
 */
import { BATCH_HEADER_SIZE, BATCH_LOG_OVERHEAD, crcMatches, LAST_OFFSET_DELTA, MAGIC } from '../protocol/record-batch.js';
import { headerProblem } from './batch-file.js';

export class LogDamageError extends Error {
  constructor(
    readonly file: string,
    readonly position: number,
    /** The offset due at `position`. */
    readonly offset: number,
    readonly problem: string,
    /** Whether the batch there is corrupt in itself (a length below a batch header, a CRC that does not match) rather than out of place. */
    readonly corrupt: boolean,
  ) {
    super(`${file} is damaged at position ${position}, where offset ${offset} was due: ${problem}`);
  }
}

export interface IntactBatches {
  /** Bytes the intact batches take. */
  readonly length: number;
  /** What is wrong with the first batch, when it is damaged (and `length` is 0). */
  readonly problem?: string;
  readonly corrupt?: boolean;
}

/**
 * The whole batches at the start of `bytes` (read from a segment, the first starting at offset
 * `due`) that may be served: below `hw`, within `maxBytes` but at least one, each in place and,
 * if it starts before `checkedFrom`, matching its CRC. A damaged batch ends them; if it is the
 * first, `problem` says what is wrong.
 */
export function intactBatches(bytes: Buffer, maxBytes: number, hw: number, due: number, checkedFrom: number): IntactBatches {
  let pos = 0;
  let next = due;
  const damaged = (problem: string, corrupt: boolean): IntactBatches => (pos === 0 ? { length: 0, problem, corrupt } : { length: pos });
  while (pos + BATCH_HEADER_SIZE <= bytes.length) {
    const size = bytes.readInt32BE(pos + 8) + BATCH_LOG_OVERHEAD;
    if (size < BATCH_HEADER_SIZE) return damaged(`batch length ${size - BATCH_LOG_OVERHEAD} is less than a batch header`, true);
    if (pos + size > bytes.length || (pos > 0 && pos + size > maxBytes)) break;
    const baseOffset = Number(bytes.readBigInt64BE(pos));
    const lastOffsetDelta = bytes.readInt32BE(pos + LAST_OFFSET_DELTA);
    const problem = headerProblem(bytes.readInt8(pos + MAGIC), lastOffsetDelta, baseOffset, next);
    if (problem !== undefined) return damaged(problem, false);
    if (baseOffset >= hw) break;
    if (pos < checkedFrom && !crcMatches(bytes, pos, size)) return damaged(`batch at offset ${baseOffset} fails its CRC`, true);
    pos += size;
    next = baseOffset + lastOffsetDelta + 1;
  }
  return pos > 0 ? { length: pos } : { length: 0, problem: 'the file ends inside the batch', corrupt: false };
}
