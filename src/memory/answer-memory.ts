/**
 * Pooled memory one answer's log bytes are read into. While held it counts toward the unsent
 * answers of the answer's connection; it goes back to the pool once the answer is sent, or at once
 * when what was read into it is not sent after all.
 */
import type { SentHooks } from '../server/connection.js';
import type { BufferPool } from './buffer-pool.js';

export class AnswerMemory {
  private readonly pieces: Buffer[] = [];
  private bytes = 0;
  /** Room claimed for reads under way: counted before they take it, so that requests handed on meanwhile find it taken. */
  private claimed = 0;

  constructor(
    private readonly pool: BufferPool,
    private readonly sent: SentHooks,
  ) {
    sent.afterSent(() => this.giveBackSince(0));
  }

  /** Memory of at least `size` bytes for the answer. */
  readonly take = (size: number): Buffer => {
    const piece = this.pool.take(size);
    this.pieces.push(piece);
    this.bytes += piece.length;
    this.count();
    return piece;
  };

  /** Claims `bytes` of the connection's room for answers, for reads about to start; 0 once they are done. */
  claim(bytes: number): void {
    this.claimed = Math.max(bytes, 0);
    this.count();
  }

  /** How many pieces were taken so far: a mark for giveBackSince. */
  get taken(): number {
    return this.pieces.length;
  }

  /** Gives back the pieces taken since `mark`: nothing refers to them any more. */
  giveBackSince(mark: number): void {
    for (const piece of this.pieces.splice(mark)) {
      this.pool.give(piece);
      this.bytes -= piece.length;
    }
    this.count();
  }

  private count(): void {
    this.sent.holding(Math.max(this.claimed, this.bytes));
  }
}
