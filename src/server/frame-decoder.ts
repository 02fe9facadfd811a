/**
 * Splits a byte stream into Kafka frames: a 4-byte big-endian size, then that many bytes.
 * A frame that fits one chunk is returned as a slice of it. One that spans chunks is gathered
 * into memory shared by every decoder and reused for the next such frame, so a frame must be
 * handled, or copied, before the next push() on any connection: connections hand each frame
 * to their handler synchronously. Reusing it spares an allocation per large request, whose
 * churn set off V8's full collections under produce load.
 */

export class FrameError extends Error {}

/** Frames up to this size are gathered into the shared memory; larger ones get their own. */
const LARGEST_SHARED_FRAME = 1024 * 1024;
let shared = Buffer.alloc(0);

function gatheringBuffer(n: number): Buffer {
  if (n > LARGEST_SHARED_FRAME) return Buffer.allocUnsafeSlow(n);
  if (shared.length < n) shared = Buffer.allocUnsafeSlow(Math.min(Math.max(n, shared.length * 2), LARGEST_SHARED_FRAME));
  return shared.subarray(0, n);
}

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
    const inOneChunk = this.chunks[0]!.length >= n;
    const out = inOneChunk ? this.chunks[0]!.subarray(0, n) : gatheringBuffer(n);
    for (let filled = 0; filled < n; ) {
      const chunk = this.chunks[0]!;
      const part = Math.min(chunk.length, n - filled);
      if (!inOneChunk) out.set(chunk.subarray(0, part), filled);
      filled += part;
      if (part === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(part);
    }
    this.buffered -= n;
    return out;
  }
}
