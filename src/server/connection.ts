/**
 * One client connection: bytes in (through received()), responses out in request order.
 * Requests are handed to the handler synchronously in arrival order (so a producer's pipelined
 * batches are judged in the order sent); their answers may complete in any order and are
 * written in request order.
 */
import type { Socket } from 'node:net';
import { FrameDecoder, FrameError } from './frame-decoder.js';
import type { BufferPool } from '../memory/buffer-pool.js';
import type { MemoryBudget } from './memory-budget.js';

/** A whole response frame, size prefix included, possibly in pieces; undefined = no response. */
export type ResponseBytes = Buffer | readonly Buffer[] | undefined;

export interface ConnectionContext {
  readonly id: number;
  readonly remoteAddress: string;
  /** Closes the connection once the responses to requests received so far are written. */
  end(): void;
}

/** What a handler may ask of the connection about one request's response. */
export interface SentHooks {
  /**
   * Runs `release` once the response has been written to the socket, or once it never will be:
   * memory the response refers to can be reused from then on.
   */
  afterSent(release: () => void): void;
}

export type FrameHandler = (frame: Buffer, context: ConnectionContext, sent: SentHooks) => ResponseBytes | Promise<ResponseBytes>;

export interface ConnectionLimits {
  readonly maxRequestBytes: number;
  /** Answers queued and not yet written before the connection stops reading. */
  readonly maxQueuedResponses: number;
}

export interface ConnectionEvents {
  /** A request or frame the connection cannot go on from; the socket is closed after it. */
  onProtocolError(context: ConnectionContext, message: string): void;
  onClose(connection: Connection): void;
}

/** A request's place in the order of responses. */
class Slot implements SentHooks {
  done = false;
  response: ResponseBytes = undefined;
  private releases: (() => void)[] | undefined;

  afterSent(release: () => void): void {
    (this.releases ??= []).push(release);
  }

  /** What the socket should call once the response is written; undefined when nothing waits for that. */
  get onWritten(): (() => void) | undefined {
    return this.releases === undefined ? undefined : () => this.sent();
  }

  /** The response is written, or never will be. */
  sent(): void {
    const releases = this.releases;
    this.releases = undefined;
    if (releases !== undefined) for (const release of releases) release();
  }
}

export class Connection {
  private readonly decoder: FrameDecoder;
  private readonly slots: Slot[] = [];
  private paused = false;
  /** Bytes of the budget held for the request being received. */
  private reserved = 0;
  private waitingForMemory = false;
  private ending = false;
  private readonly retryReserve = (): void => this.reserveForPendingFrame();
  private readonly onFrame = (frame: Buffer): void => {
    if (!this.socket.destroyed && !this.ending) this.dispatch(frame);
  };
  readonly context: ConnectionContext;

  constructor(
    private readonly socket: Socket,
    id: number,
    private readonly handler: FrameHandler,
    private readonly limits: ConnectionLimits,
    private readonly budget: MemoryBudget,
    frameMemory: BufferPool,
    private readonly events: ConnectionEvents,
  ) {
    this.decoder = new FrameDecoder(limits.maxRequestBytes, frameMemory);
    this.context = {
      id,
      remoteAddress: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`,
      end: () => {
        this.ending = true;
        socket.pause();
        this.endIfDone();
      },
    };
    socket.on('drain', () => this.updateFlow());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      budget.cancelWait(this.retryReserve);
      budget.release(this.reserved);
      this.reserved = 0;
      events.onClose(this);
    });
  }

  /** Closes the connection; resolves once it is closed and its memory given back. */
  close(): Promise<void> {
    if (this.socket.closed) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    this.socket.destroy();
    return closed;
  }

  /** Bytes read from the socket, lent for the call only. */
  received(chunk: Buffer): void {
    try {
      this.decoder.push(chunk, this.onFrame);
    } catch (err) {
      // A bad size prefix, or memory that could not be had: this connection ends, the broker goes on.
      this.fail(err instanceof FrameError ? err.message : `cannot take this request: ${describe(err)}`);
      return;
    }
    this.reserveForPendingFrame();
  }

  /** Memory the next read may fill in place: the rest of a large request being received, once the budget holds it. */
  readTarget(): Buffer | undefined {
    const held = this.reserved > 0 && this.reserved === this.decoder.pendingFrameSize;
    return held && !this.socket.destroyed ? this.decoder.readTarget() : undefined;
  }

  /** Holds budget for the request now arriving, or stops reading until there is some. */
  private reserveForPendingFrame(): void {
    if (this.socket.destroyed) return;
    const need = this.decoder.pendingFrameSize;
    if (need !== this.reserved) {
      this.budget.release(this.reserved);
      this.reserved = 0;
      this.waitingForMemory = need > 0 && !this.budget.tryReserve(need);
      if (this.waitingForMemory) this.budget.wait(this.retryReserve);
      else {
        this.budget.cancelWait(this.retryReserve);
        this.reserved = need;
      }
    }
    this.updateFlow();
  }

  private dispatch(frame: Buffer): void {
    const slot = new Slot();
    this.slots.push(slot);
    let result: ResponseBytes | Promise<ResponseBytes>;
    try {
      result = this.handler(frame, this.context, slot);
    } catch (err) {
      this.fail(describe(err));
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (response) => this.complete(slot, response),
        (err: unknown) => this.fail(describe(err)),
      );
    } else {
      this.complete(slot, result);
    }
  }

  private complete(slot: Slot, response: ResponseBytes): void {
    slot.done = true;
    slot.response = response;
    if (this.slots[0] !== slot) return;
    // Several answers ready at once, or an answer in pieces, leave in one system call.
    const several = (this.slots.length > 1 && this.slots[1]!.done) || Array.isArray(response);
    if (several) this.socket.cork();
    while (this.slots.length > 0 && this.slots[0]!.done) {
      const written = this.slots.shift()!;
      const bytes = written.response;
      if (bytes === undefined || this.socket.destroyed) {
        written.sent();
        continue;
      }
      // The last write's callback comes once every earlier one is through too.
      const onWritten = written.onWritten;
      if (Buffer.isBuffer(bytes)) this.socket.write(bytes, onWritten);
      else bytes.forEach((part, i) => this.socket.write(part, i === bytes.length - 1 ? onWritten : undefined));
    }
    if (several) this.socket.uncork();
    this.endIfDone();
    this.updateFlow();
  }

  private endIfDone(): void {
    if (this.ending && this.slots.length === 0) this.socket.end();
  }

  /** Stops reading while answers pile up or the socket cannot take more; resumes after. */
  private updateFlow(): void {
    if (this.ending) return;
    const congested = this.waitingForMemory || this.slots.length >= this.limits.maxQueuedResponses || this.socket.writableNeedDrain;
    if (congested && !this.paused) {
      this.paused = true;
      this.socket.pause();
    } else if (!congested && this.paused) {
      this.paused = false;
      this.socket.resume();
    }
  }

  private fail(message: string): void {
    if (this.socket.destroyed) return;
    this.events.onProtocolError(this.context, message);
    this.socket.destroy();
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
