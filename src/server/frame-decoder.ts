/**
 * Splits a byte stream into Kafka frames: a 4-byte big-endian size, then that many bytes.
 *
 * Chunks are lent for the call of push() only: the server reads every connection into the same
 * memory. A frame within one chunk is handed on as a slice of it; the part of a frame that is
 * still arriving is copied into memory of its own, which large reads may also fill in place
 * (readTarget). A frame is lent to onFrame likewise: it must be handled, or copied, before
 * onFrame returns.
 *
 * The memory for a frame's declared size is taken only when more than its first chunk arrives
 * (or a read is to fill it in place): the connection stops reading until the server's budget for
 * requests received in part has room, so a size prefix claims no more than the bytes that came
 * with it (in a pooled piece of at least 4 KiB).
 */
import type { BufferPool } from '../memory/buffer-pool.js';

export class FrameError extends Error {}

/** A frame still missing at least this much is read straight into its own memory. */
const IN_PLACE_READ_BYTES = 16 * 1024;

export class FrameDecoder {
  /** The frame arriving over several reads: its memory (what has arrived, or room for the whole frame), size, and the bytes in so far. */
  private memory: Buffer | undefined;
  private size = 0;
  private have = 0;
  /** A size prefix split between reads. */
  private readonly prefix = Buffer.alloc(4);
  private prefixHave = 0;

  constructor(
    private readonly maxFrameBytes: number,
    private readonly frameMemory: BufferPool,
  ) {}

  /** The declared size of the frame being received, once its size prefix is in; else 0. */
  get pendingFrameSize(): number {
    return this.memory === undefined ? 0 : 4 + this.size;
  }

  /**
   * Where the next read may go, when the frame being received still misses a lot of bytes; only
   * for a connection whose budget holds the frame's size, as this takes memory for all of it.
   */
  readTarget(): Buffer | undefined {
    if (this.memory === undefined || this.size - this.have < IN_PLACE_READ_BYTES) return undefined;
    return this.roomFor(this.size).subarray(this.have, this.size);
  }

  /** Hands each frame `chunk` completes to onFrame; throws FrameError on a size it will not accept. */
  push(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    let at = 0;
    if (this.memory !== undefined) {
      at = this.fill(chunk);
      if (this.have < this.size) return;
      const memory = this.memory;
      this.memory = undefined;
      try {
        onFrame(memory.subarray(0, this.size));
      } finally {
        this.frameMemory.give(memory);
      }
    }
    while (at < chunk.length) {
      let size: number;
      if (this.prefixHave > 0 || chunk.length - at < 4) {
        const n = chunk.copy(this.prefix, this.prefixHave, at, at + 4 - this.prefixHave);
        this.prefixHave += n;
        at += n;
        if (this.prefixHave < 4) return;
        this.prefixHave = 0;
        size = this.prefix.readInt32BE(0);
      } else {
        size = chunk.readInt32BE(at);
        at += 4;
      }
      if (size <= 0 || size > this.maxFrameBytes) {
        throw new FrameError(`request size ${size} is outside 1..${this.maxFrameBytes}`);
      }
      if (chunk.length - at >= size) {
        onFrame(chunk.subarray(at, at + size));
        at += size;
      } else {
        this.memory = this.frameMemory.take(chunk.length - at);
        this.size = size;
        this.have = chunk.copy(this.memory, 0, at);
        return;
      }
    }
  }

  /** Adds the start of `chunk` to the frame being received; returns how many bytes it took. */
  private fill(chunk: Buffer): number {
    const n = Math.min(chunk.length, this.size - this.have);
    const memory = this.memory!;
    const inPlace = chunk.buffer === memory.buffer && chunk.byteOffset === memory.byteOffset + this.have;
    if (!inPlace) chunk.copy(this.roomFor(this.have + n), this.have, 0, n);
    this.have += n;
    return n;
  }

  /** The frame's memory, moved into memory for the whole frame first if it holds fewer than `n` bytes. */
  private roomFor(n: number): Buffer {
    const memory = this.memory!;
    if (memory.length >= n) return memory;
    const whole = this.frameMemory.take(this.size);
    memory.copy(whole, 0, 0, this.have);
    this.frameMemory.give(memory);
    this.memory = whole;
    return whole;
  }
}
