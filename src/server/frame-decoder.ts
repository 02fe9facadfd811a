/**
 * Splits a byte stream into Kafka frames: a 4-byte big-endian size, then that many bytes.
 *
 * Chunks are lent for the call of push() only: the server reads every connection into the same
 * memory. A frame within one chunk is handed on as a slice of it; the part of a frame that is
 * still arriving is copied into memory of its own, which large reads may also fill in place
 * (readTarget). A frame is lent to onFrame likewise: it must be handled, or copied, before
 * onFrame returns.
 *
 * A frame's memory grows with the bytes that arrive, doubling up to its declared size, so a size
 * prefix allocates no more than the bytes that came with it (in a pooled piece of at least 4 KiB).
 *
 * The caller may stop the frames a chunk completes from being handed on (goOn), and a frame from
 * being received at all until it says so (admit, asked with each size prefix): the rest of the
 * chunk, from that prefix on, is then kept, and handed on by the next push, which may be of no
 * bytes.
 */
import type { BufferPool } from '../memory/buffer-pool.js';
import { grownSize } from '../memory/grown-size.js';

export class FrameError extends Error {}

/** A frame still missing at least this much, and with room for it, is read straight into its own memory. */
const IN_PLACE_READ_BYTES = 16 * 1024;

const always = (): boolean => true;

/** What a push asks of its caller as it goes. */
export interface FrameFlow {
  /** Whether to hand on the next frame. */
  goOn(): boolean;
  /** Whether to receive a frame of `size` bytes now; asked again, by a later push, until it says yes. */
  admit(size: number): boolean;
}

const admitAll: FrameFlow = { goOn: always, admit: always };

export class FrameDecoder {
  /** The frame arriving over several reads: its memory, size, and the bytes in so far. */
  private memory: Buffer | undefined;
  private size = 0;
  private have = 0;
  /** A size prefix split between reads. */
  private readonly prefix = Buffer.alloc(4);
  private prefixHave = 0;
  /** Bytes received and not handed on yet, after goOn said stop: pooled memory and how much of it. */
  private unread: { memory: Buffer; length: number } | undefined;

  constructor(
    private readonly maxFrameBytes: number,
    private readonly frameMemory: BufferPool,
  ) {}

  /** Memory held for the frame being received and for bytes kept unread. */
  get heldBytes(): number {
    return (this.memory?.length ?? 0) + (this.unread?.memory.length ?? 0);
  }

  /** Whether bytes are kept that the next push hands on. */
  get holdsUnread(): boolean {
    return this.unread !== undefined;
  }

  /** Where the next read may go: the room in the memory of a frame that still misses a lot of bytes. */
  readTarget(): Buffer | undefined {
    if (this.memory === undefined) return undefined;
    const end = Math.min(this.memory.length, this.size);
    return end - this.have >= IN_PLACE_READ_BYTES ? this.memory.subarray(this.have, end) : undefined;
  }

  /**
   * Hands each frame the bytes kept and `chunk` complete to onFrame, while the flow says so;
   * throws FrameError on a size it will not accept.
   */
  push(chunk: Buffer, onFrame: (frame: Buffer) => void, flow: FrameFlow = admitAll): void {
    const unread = this.unread;
    if (unread === undefined) return this.handOn(chunk, onFrame, flow);
    this.unread = undefined;
    const kept = unread.memory.subarray(0, unread.length);
    try {
      this.handOn(chunk.length === 0 ? kept : Buffer.concat([kept, chunk]), onFrame, flow);
    } finally {
      this.frameMemory.give(unread.memory);
    }
  }

  private handOn(chunk: Buffer, onFrame: (frame: Buffer) => void, { goOn, admit }: FrameFlow): void {
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
      if (!goOn()) return this.keep(chunk, at);
    }
    while (at < chunk.length) {
      let size: number;
      let split = false;
      if (this.prefixHave > 0 || chunk.length - at < 4) {
        const n = chunk.copy(this.prefix, this.prefixHave, at, at + 4 - this.prefixHave);
        this.prefixHave += n;
        at += n;
        if (this.prefixHave < 4) return;
        this.prefixHave = 0;
        size = this.prefix.readInt32BE(0);
        split = true;
      } else {
        size = chunk.readInt32BE(at);
        at += 4;
      }
      if (size <= 0 || size > this.maxFrameBytes) {
        throw new FrameError(`request size ${size} is outside 1..${this.maxFrameBytes}`);
      }
      if (!admit(size)) return split ? this.keep(chunk, at, this.prefix) : this.keep(chunk, at - 4);
      if (chunk.length - at >= size) {
        onFrame(chunk.subarray(at, at + size));
        at += size;
        if (!goOn()) return this.keep(chunk, at);
      } else {
        this.memory = this.frameMemory.take(chunk.length - at);
        this.size = size;
        this.have = chunk.copy(this.memory, 0, at);
        return;
      }
    }
  }

  /** Keeps `before` and the bytes of `chunk` from `at` on for the next push. */
  private keep(chunk: Buffer, at: number, before?: Buffer): void {
    const lead = before?.length ?? 0;
    if (lead === 0 && at === chunk.length) return;
    const memory = this.frameMemory.take(lead + chunk.length - at);
    before?.copy(memory);
    this.unread = { memory, length: lead + chunk.copy(memory, lead, at) };
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

  /** The frame's memory, moved into memory twice as large or more (at most the frame's size) if it holds fewer than `n` bytes. */
  private roomFor(n: number): Buffer {
    const memory = this.memory!;
    if (memory.length >= n) return memory;
    const grown = this.frameMemory.take(grownSize(memory.length, n, 0, this.size));
    memory.copy(grown, 0, 0, this.have);
    this.frameMemory.give(memory);
    this.memory = grown;
    return grown;
  }
}
