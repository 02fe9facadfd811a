/**
 * Pooled memory one answer's log bytes are read into. While held it counts toward the unsent
 * answers of the answer's connection and is granted from the broker's budget for work in flight
 * (`--queued-max-request-bytes`); it goes back to both once the answer is sent, or at once when
 * what was read into it is not sent after all.
 */
import type { SentHooks } from '../server/connection.js';
import type { Lane, MemoryGrant } from '../server/request-memory-pool.js';
import type { BufferPool } from './buffer-pool.js';

/** A read would take more than the budget for work in flight has free: the answer does without it. */
export class AnswerMemoryShort extends Error {}

export class AnswerMemory {
  private readonly pieces: Buffer[] = [];
  private bytes = 0;
  /** Room claimed for reads under way: counted before they take it, so that requests handed on meanwhile find it taken. */
  private claimed = 0;
  /** What the answer holds of the budget: its pieces, or the room claimed if more. */
  private grant: MemoryGrant | undefined;

  constructor(
    private readonly pool: BufferPool,
    private readonly sent: SentHooks,
    /** The budget's share answers are granted from, never waiting: what is not free now is done without. */
    private readonly budget: Lane,
  ) {
    sent.afterSent(() => {
      this.claimed = 0;
      this.giveBackSince(0);
    });
  }

  /** Memory of at least `size` bytes for the answer; AnswerMemoryShort if the budget has not that much free beyond the room claimed. */
  readonly take = (size: number): Buffer => {
    const length = this.pool.pieceFor(size);
    if (!this.hold(Math.max(this.claimed, this.bytes + length))) throw new AnswerMemoryShort(`${length} bytes more for an answer are not free in the budget`);
    const piece = this.pool.take(size);
    this.pieces.push(piece);
    this.bytes += piece.length;
    this.count();
    return piece;
  };

  /**
   * Claims up to `bytes` of the connection's room for answers and of the budget, for reads about
   * to start: the room had, less than asked when the budget has less free. 0 once they are done.
   */
  claim(bytes: number): number {
    const most = (this.grant?.bytes ?? 0) + this.budget.available;
    this.claimed = Math.max(0, Math.min(bytes, most));
    this.count();
    return this.claimed;
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
    const holds = Math.max(this.claimed, this.bytes);
    this.sent.holding(holds);
    this.hold(holds);
  }

  /** Makes the grant `bytes`, if the budget has them free; whether it is. */
  private hold(bytes: number): boolean {
    if (this.grant === undefined) {
      if (bytes === 0) return true;
      this.grant = this.budget.tryTake(bytes);
      return this.grant !== undefined;
    }
    if (bytes > 0) return this.grant.resize(bytes);
    this.grant.release();
    this.grant = undefined;
    return true;
  }
}
