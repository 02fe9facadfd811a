/**
 * Memory handed out and given back, to be reused: for requests that arrive over several reads,
 * and for the log bytes a fetch answers with. Fresh memory per large request or read made V8
 * run full collections under load: it counts external memory's growth toward them.
 */
import { grownSize } from './grown-size.js';

/** Smallest and largest pieces kept for reuse; larger ones are memory of their own. */
const SMALLEST = 4096;
const LARGEST = 1024 * 1024;

export class BufferPool {
  /** Free pieces by size; every size is a power of two from SMALLEST to LARGEST. */
  private readonly free = new Map<number, Buffer[]>();
  private kept = 0;

  /** `maxKeptBytes` bounds the free memory held for reuse. */
  constructor(private readonly maxKeptBytes: number) {}

  /** How long a piece take(size) hands out is. */
  pieceFor(size: number): number {
    return size > LARGEST ? size : grownSize(0, size, SMALLEST, LARGEST);
  }

  /** Memory of at least `size` bytes, its contents unspecified. */
  take(size: number): Buffer {
    const piece = this.pieceFor(size);
    if (piece > LARGEST) return Buffer.allocUnsafeSlow(piece);
    const reused = this.free.get(piece)?.pop();
    if (reused === undefined) return Buffer.allocUnsafeSlow(piece);
    this.kept -= piece;
    return reused;
  }

  /** Takes back memory from take() once nothing refers to it. */
  give(memory: Buffer): void {
    if (memory.length > LARGEST || this.kept + memory.length > this.maxKeptBytes) return;
    const pieces = this.free.get(memory.length);
    if (pieces === undefined) this.free.set(memory.length, [memory]);
    else pieces.push(memory);
    this.kept += memory.length;
  }

  /** Free bytes held for reuse. */
  get keptBytes(): number {
    return this.kept;
  }
}
