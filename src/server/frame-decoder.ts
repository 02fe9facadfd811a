/**
 * Splits a byte stream into Kafka frames: a 4-byte big-endian size, then that many bytes.
 * A frame that fits one chunk is returned as a slice of it; a larger one is joined once.
 */

export class FrameError extends Error {}

export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxFrameBytes: number) {}

  /** The declared size of the frame being received, once its size prefix is in; else 0. */
  get pendingFrameSize(): number {
    return this.buffered >= 4 ? 4 + this.peekSize() : 0;
  }

  /** Returns the frames completed by `chunk`; throws FrameError on a size it will not accept. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Buffer[] = [];
    while (this.buffered >= 4) {
      const size = this.peekSize();
      if (size <= 0 || size > this.maxFrameBytes) {
        throw new FrameError(`request size ${size} is outside 1..${this.maxFrameBytes}`);
      }
      if (this.buffered < 4 + size) break;
      frames.push(this.take(4 + size).subarray(4));
    }
    return frames;
  }

  private peekSize(): number {
    const first = this.chunks[0]!;
    if (first.length >= 4) return first.readInt32BE(0);
    return Buffer.concat(this.chunks, 4).readInt32BE(0);
  }

  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      const joined = Buffer.concat(this.chunks, this.buffered);
      out = joined.subarray(0, n);
      this.chunks = joined.length > n ? [joined.subarray(n)] : [];
    }
    this.buffered -= n;
    return out;
  }
}
