/**
 * A TCP proxy between Kafka clients and brook that sees whole frames both ways and injects
 * faults: it can lose a response and cut the connection, hold a response back, cut a connection
 * halfway through a request, or answer a request itself without the broker ever seeing it.
 * Loopback only; it closes itself after `lifetimeMs`.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { readRequestHeader } from '../../src/protocol/messages/header.js';
import { ProduceRequest } from '../../src/protocol/messages/produce.js';
import { Reader } from '../../src/protocol/primitives/reader.js';
import { FrameDecoder } from '../../src/server/frame-decoder.js';
import { BufferPool } from '../../src/memory/buffer-pool.js';
import { API } from './produce-frames.js';

export interface KafkaRequest {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string | null;
  /** Where the body starts in `frame`. */
  readonly bodyOffset: number;
  /** The frame without its size prefix. */
  readonly frame: Buffer;
}

/** `answer` is a whole response frame (size prefix excluded) sent in place of the broker's. */
export type RequestAction = 'forward' | 'cut' | { readonly answer: Buffer };
export type ResponseAction = 'forward' | 'drop-and-cut' | { readonly delayMs: number };

export interface FaultRules {
  onRequest?(request: KafkaRequest): RequestAction;
  onResponse?(request: KafkaRequest): ResponseAction;
}

const MAX_FRAME = 100 * 1024 * 1024;

/** Whether the broker answers this request: all but Produce with acks=0. */
function expectsResponse(request: KafkaRequest): boolean {
  if (request.apiKey !== API.PRODUCE) return true;
  return ProduceRequest.read(new Reader(request.frame, request.bodyOffset), request.apiVersion).acks !== 0;
}

function sized(frame: Buffer): Buffer {
  const prefix = Buffer.alloc(4);
  prefix.writeInt32BE(frame.length);
  return Buffer.concat([prefix, frame]);
}

export class FaultProxy {
  /** The broker's port; change it when the broker comes back on another one. */
  target = 0;
  rules: FaultRules = {};
  private readonly sockets = new Set<Socket>();
  private readonly deadline: NodeJS.Timeout;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    lifetimeMs: number,
  ) {
    this.deadline = setTimeout(() => void this.close(), lifetimeMs).unref();
    server.on('connection', (client) => this.accept(client));
  }

  static async start(lifetimeMs = 300_000): Promise<FaultProxy> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new FaultProxy(server, (server.address() as { port: number }).port, lifetimeMs);
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** The flag that makes brook's Metadata send clients back through this proxy. */
  get advertisedListener(): string[] {
    return ['--advertised-listener', this.bootstrap];
  }

  async close(): Promise<void> {
    clearTimeout(this.deadline);
    for (const s of this.sockets) s.destroy();
    if (this.server.listening) await new Promise((resolve) => this.server.close(resolve));
  }

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    return socket;
  }

  private accept(client: Socket): void {
    const broker = this.track(connect({ host: '127.0.0.1', port: this.target }));
    this.track(client);
    const cut = (): void => {
      client.destroy();
      broker.destroy();
    };
    client.on('close', cut);
    broker.on('close', cut);
    // Responses go back in request order, whatever is delayed or answered here.
    const awaiting = new Map<number, { request: KafkaRequest; deliver: (frame: Buffer) => void }>();
    let outbox = Promise.resolve();
    const enqueue = (response: Promise<Buffer>): void => {
      outbox = outbox.then(async () => {
        const frame = await response;
        if (!client.destroyed) client.write(sized(frame));
      });
    };

    const requests = new FrameDecoder(MAX_FRAME, new BufferPool(0));
    let cutting = false;
    client.on('data', (chunk: Buffer) => {
      if (cutting) return;
      for (const frame of copiedFrames(requests, chunk)) {
        const header = readRequestHeader(frame);
        const request: KafkaRequest = { ...header, frame };
        const action = this.rules.onRequest?.(request) ?? 'forward';
        if (action === 'cut') {
          cutting = true;
          broker.write(sized(frame).subarray(0, 4 + (frame.length >> 1)), cut);
          return;
        }
        if (action !== 'forward') {
          enqueue(Promise.resolve(action.answer));
          continue;
        }
        if (expectsResponse(request)) {
          let deliver!: (frame: Buffer) => void;
          enqueue(new Promise<Buffer>((resolve) => (deliver = resolve)));
          awaiting.set(request.correlationId, { request, deliver });
        }
        broker.write(sized(frame));
      }
    });

    const responses = new FrameDecoder(MAX_FRAME, new BufferPool(0));
    broker.on('data', (chunk: Buffer) => {
      for (const frame of copiedFrames(responses, chunk)) {
        const pending = awaiting.get(frame.readInt32BE(0));
        if (pending === undefined) return cut();
        awaiting.delete(pending.request.correlationId);
        const action = this.rules.onResponse?.(pending.request) ?? 'forward';
        if (action === 'drop-and-cut') return cut();
        if (action === 'forward') pending.deliver(frame);
        else setTimeout(() => pending.deliver(frame), action.delayMs);
      }
    });
  }
}

/** The frames `chunk` completes, copied: the proxy keeps them past the push that lends them. */
function copiedFrames(decoder: FrameDecoder, chunk: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  decoder.push(chunk, (lent) => frames.push(Buffer.from(lent)));
  return frames;
}
