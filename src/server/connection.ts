/**
 * One client connection: bytes in (through received()), responses out in request order.
 * Requests are handed to the handler synchronously in arrival order (so a producer's pipelined
 * batches are judged in the order sent); their answers may complete in any order and are
 * written in request order.
 */
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { FrameDecoder, FrameError, type FrameFlow } from './frame-decoder.js';
import type { BufferPool } from '../memory/buffer-pool.js';
import type { Lane, MemoryGrant } from './request-memory-pool.js';
import { clientAddress } from './host-port.js';

const NO_BYTES = Buffer.alloc(0);

/** A whole response frame, size prefix included, possibly in pieces; undefined = no response. */
export type ResponseBytes = Buffer | readonly Buffer[] | undefined;

export interface ConnectionContext {
  readonly id: number;
  readonly remoteAddress: string;
  /** The client's IP address (see clientAddress). */
  readonly address: string;
  /** The subject of the client certificate TLS verified, in RFC 2253 order (as Kafka's `DefaultKafkaPrincipalBuilder` names an SSL principal); undefined without one. */
  readonly certifiedPeer: string | undefined;
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
  /** The response being made now holds `bytes` of memory (log bytes read for it, say): they count toward the connection's unsent answers. */
  holding(bytes: number): void;
  /** How many bytes this response may hold in all, beside what the connection's other unsent answers hold, before the connection stops reading requests. */
  readonly answerRoom: number;
  /**
   * No answer to this request, and none after it: the connection closes once the answers before
   * it are written, as a connection lost at that point would.
   */
  cut(): void;
}

export type FrameHandler = (frame: Buffer, context: ConnectionContext, sent: SentHooks) => ResponseBytes | Promise<ResponseBytes>;

export interface ConnectionLimits {
  readonly maxRequestBytes: number;
  /** Answers queued and not yet written before the connection stops reading. */
  readonly maxQueuedResponses: number;
  /** Bytes its unsent answers hold (memory taken to make them, then the responses) before the connection stops reading. */
  readonly maxUnsentResponseBytes: number;
}

export interface ConnectionEvents {
  /** A request or frame the connection cannot go on from; the socket is closed after it. */
  onProtocolError(context: ConnectionContext, message: string): void;
  onClose(connection: Connection): void;
}

/**
 * The bytes a connection's answers hold until they are handed to the socket, against its limit;
 * the socket's own buffer stops the connection reading through writableNeedDrain.
 */
class UnsentAnswers {
  bytes = 0;
  constructor(
    readonly limit: number,
    /** Called when an answer holds less: a connection stopped on the limit may read again. */
    readonly freed: () => void,
  ) {}
}

/** A request's place in the order of responses. */
class Slot implements SentHooks {
  done = false;
  response: ResponseBytes = undefined;
  isCut = false;
  /** What this answer counts in `unsent`: memory its handler holds, then the response's size until the socket has it. */
  private bytes = 0;
  private releases: (() => void)[] | undefined;

  constructor(
    private readonly unsent: UnsentAnswers,
    /** The request's memory in the broker's pool, from its size prefix until it is answered. */
    private readonly grant: MemoryGrant | undefined,
  ) {}

  afterSent(release: () => void): void {
    (this.releases ??= []).push(release);
  }

  holding(bytes: number): void {
    if (!this.done) this.count(bytes);
  }

  get answerRoom(): number {
    return this.unsent.limit - (this.unsent.bytes - this.bytes);
  }

  cut(): void {
    this.isCut = true;
  }

  complete(response: ResponseBytes): void {
    this.grant?.release();
    this.done = true;
    this.response = response;
    this.count(response === undefined ? 0 : Buffer.isBuffer(response) ? response.length : response.reduce((n, part) => n + part.length, 0));
  }

  /** The socket has the response: its buffer counts what is not yet written. */
  handedOver(): void {
    this.count(0);
  }

  /** What the socket should call once the response is written; undefined when nothing waits for that. */
  get onWritten(): (() => void) | undefined {
    return this.releases === undefined ? undefined : () => this.sent();
  }

  /** The response is written, or never will be. */
  sent(): void {
    this.count(0);
    const releases = this.releases;
    this.releases = undefined;
    if (releases !== undefined) for (const release of releases) release();
  }

  private count(bytes: number): void {
    const less = bytes < this.bytes;
    this.unsent.bytes += bytes - this.bytes;
    this.bytes = bytes;
    if (less) this.unsent.freed();
  }
}

export class Connection {
  private readonly decoder: FrameDecoder;
  private readonly slots: Slot[] = [];
  private readonly unsent: UnsentAnswers;
  private paused = false;
  /** The pool's memory for the request being received, taken (or waited for) when its size prefix came. */
  private pending: MemoryGrant | undefined;
  private ending = false;
  /** A cut answer has come up: nothing more is written. */
  private cutOff = false;
  /** Set while the decoder hands on frames: flow is settled once it is done. */
  private decoding = false;
  /** Answers written this event-loop turn wait in the socket until the turn is over. */
  private corked = false;
  private readonly uncorkAfterTurn = (): void => {
    this.corked = false;
    this.socket.uncork();
  };
  private readonly retryFlow = (): void => this.updateFlow();
  private readonly onFrame = (frame: Buffer): void => {
    const grant = this.pending;
    this.pending = undefined;
    if (!this.closing) this.dispatch(frame, grant);
    else grant?.release();
  };
  /** Whether to hand on more requests now: not while answers pile up, by count or by what they hold, nor while the socket cannot take more. */
  private readonly takesRequests = (): boolean =>
    !this.closing &&
    this.slots.length < this.limits.maxQueuedResponses &&
    this.unsent.bytes < this.limits.maxUnsentResponseBytes &&
    !this.socket.writableNeedDrain;
  /**
   * As Kafka's `NetworkReceive` asks its `MemoryPool` once a size prefix is read: the request's
   * declared size is taken from the pool before its body is received, and the connection reads
   * no more until it is granted.
   */
  private readonly flow: FrameFlow = {
    goOn: this.takesRequests,
    admit: (size) => (this.pending ??= this.memory.take(size, this.granted)).granted,
  };
  // Later, not inside the release that granted it: flow control may hand on more requests.
  private readonly granted = (): void => queueMicrotask(this.retryFlow);
  readonly context: ConnectionContext;

  constructor(
    private readonly socket: Socket,
    id: number,
    private readonly handler: FrameHandler,
    private readonly limits: ConnectionLimits,
    /** The broker's pool's share for requests. */
    private readonly memory: Lane,
    frameMemory: BufferPool,
    private readonly events: ConnectionEvents,
  ) {
    this.decoder = new FrameDecoder(limits.maxRequestBytes, frameMemory);
    // Later, not inside the handler that gave memory back: flow control may hand on more requests.
    this.unsent = new UnsentAnswers(limits.maxUnsentResponseBytes, () => {
      if (this.paused) queueMicrotask(this.retryFlow);
    });
    this.context = {
      id,
      remoteAddress: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`,
      address: clientAddress(socket.remoteAddress ?? '?'),
      certifiedPeer: socket instanceof TLSSocket && socket.authorized ? socket.getPeerX509Certificate()?.subject.split('\n').reverse().join(',') : undefined,
      end: () => {
        this.ending = true;
        socket.pause();
        this.endIfDone();
      },
    };
    socket.on('drain', () => this.updateFlow());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.pending?.release();
      this.pending = undefined;
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

  /** Bytes read from the socket, lent for the call only; passed over once the connection ends. */
  received(chunk: Buffer): void {
    if (this.closing) return;
    this.decode(chunk);
    // Answers to what was just read leave together, once this turn's writes to the log (queued
    // before this) have settled them.
    if (this.slots.length > 0) this.corkForTurn();
    this.updateFlow();
  }

  /** Memory the next read may fill in place: the rest of a large request being received. */
  readTarget(): Buffer | undefined {
    return this.closing ? undefined : this.decoder.readTarget();
  }

  private get closing(): boolean {
    return this.ending || this.socket.destroyed;
  }

  /** Hands on the requests `chunk` (and what was kept unread) completes, while requests are taken. */
  private decode(chunk: Buffer): void {
    this.decoding = true;
    try {
      this.decoder.push(chunk, this.onFrame, this.flow);
    } catch (err) {
      // A bad size prefix, or memory that could not be had: this connection ends, the broker goes on.
      this.fail(err instanceof FrameError ? err.message : `cannot take this request: ${describe(err)}`);
    } finally {
      this.decoding = false;
    }
  }

  private dispatch(frame: Buffer, grant: MemoryGrant | undefined): void {
    const slot = new Slot(this.unsent, grant);
    this.slots.push(slot);
    let result: ResponseBytes | Promise<ResponseBytes>;
    try {
      result = this.handler(frame, this.context, slot);
    } catch (err) {
      this.refuse(slot, describe(err));
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (response) => this.complete(slot, response),
        (err: unknown) => this.refuse(slot, describe(err)),
      );
    } else {
      this.complete(slot, result);
    }
  }

  /**
   * A request the connection cannot go on from: it takes no more, answers those before it and
   * then closes, as Kafka's `SocketServer` `Processor`, which mutes a channel until its request is answered.
   */
  private refuse(slot: Slot, message: string): void {
    if (!this.socket.destroyed) {
      this.events.onProtocolError(this.context, message);
      this.context.end();
    }
    this.complete(slot, undefined);
  }

  private complete(slot: Slot, response: ResponseBytes): void {
    slot.complete(response);
    if (slot.isCut) this.context.end();
    if (this.slots[0] !== slot) return;
    // Pipelined answers complete one by one, each in its own microtask; all those of one turn leave
    // in one system call, since each loopback send also costs the receiver's TCP work.
    this.corkForTurn();
    while (this.slots.length > 0 && this.slots[0]!.done) {
      const written = this.slots.shift()!;
      if (written.isCut && !this.cutOff) {
        this.cutOff = true;
        this.socket.destroySoon();
      }
      const bytes = written.response;
      if (bytes === undefined || this.socket.destroyed || this.cutOff) {
        written.sent();
        continue;
      }
      written.handedOver();
      // The last write's callback comes once every earlier one is through too.
      const onWritten = written.onWritten;
      if (Buffer.isBuffer(bytes)) this.socket.write(bytes, onWritten);
      else bytes.forEach((part, i) => this.socket.write(part, i === bytes.length - 1 ? onWritten : undefined));
    }
    this.endIfDone();
    this.updateFlow();
  }

  private corkForTurn(): void {
    if (this.corked) return;
    this.corked = true;
    this.socket.cork();
    setImmediate(this.uncorkAfterTurn);
  }

  /**
   * Once every answer is out, ends this side and reads again, passing the bytes over, so that the
   * client's end is seen and the connection, with its `--max-connections` slot, closes with it.
   */
  private endIfDone(): void {
    if (!this.ending || this.slots.length > 0) return;
    this.socket.end();
    this.socket.resume();
  }

  /**
   * Hands on requests kept unread once answers and the pool allow; stops reading while requests
   * are not taken or the next one waits for the pool, and resumes after.
   */
  private updateFlow(): void {
    if (this.closing || this.decoding) return;
    if (this.decoder.holdsUnread && this.takesRequests()) this.decode(NO_BYTES);
    if (this.closing) return;
    const waitingForMemory = this.pending !== undefined && !this.pending.granted;
    const congested = waitingForMemory || this.decoder.holdsUnread || !this.takesRequests();
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
