/** A bare Kafka connection for tests that need exact bytes on the wire: one request at a time, or pipelined. */
import { connect, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import { once } from 'node:events';
import { readResponseFrame, requestFrame } from '../../src/protocol/frames.js';
import type { MessageCodec } from '../../src/protocol/messages/codec.js';
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../../src/protocol/messages/sasl-authenticate.js';
import { SaslHandshakeRequest, SaslHandshakeResponse } from '../../src/protocol/messages/sasl-handshake.js';

export class WireClient {
  private buffered = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private waiter: (() => void) | undefined;
  private correlationId = 1;
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        const size = this.buffered.readInt32BE(0);
        this.frames.push(this.buffered.subarray(4, 4 + size));
        this.buffered = this.buffered.subarray(4 + size);
      }
      this.waiter?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
    socket.on('error', () => {});
  }

  static async connect(port: number, host = '127.0.0.1'): Promise<WireClient> {
    const socket = connect({ port, host });
    await once(socket, 'connect');
    return new WireClient(socket);
  }

  static async connectTls(port: number, options: ConnectionOptions): Promise<WireClient> {
    const socket = connectTls({ port, host: '127.0.0.1', ...options });
    await once(socket, 'secureConnect');
    return new WireClient(socket);
  }

  /** Authenticates with SASL/PLAIN; throws unless the broker takes it. */
  async authenticatePlain(user: string, password: string): Promise<void> {
    const handshake = await this.request(SaslHandshakeRequest, SaslHandshakeResponse, 1, { mechanism: 'PLAIN' });
    if (handshake.errorCode !== 0) throw new Error(`SaslHandshake: error ${handshake.errorCode}`);
    const authenticated = await this.request(SaslAuthenticateRequest, SaslAuthenticateResponse, 2, { authBytes: Buffer.from(`\0${user}\0${password}`) });
    if (authenticated.errorCode !== 0) throw new Error(`SaslAuthenticate: error ${authenticated.errorCode} ${authenticated.errorMessage}`);
  }

  /** Encodes a request frame (size prefix included). */
  frame<Req>(codec: MessageCodec<Req>, version: number, request: Req, correlationId = this.correlationId++): Buffer {
    return requestFrame(codec, version, request, correlationId, 'wire-test');
  }

  sendRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /**
   * The next response frame, or undefined once the broker closed the connection. The default wait
   * is long: it only ends a test whose answer never comes, and a busy machine may take seconds.
   */
  async nextFrame(timeoutMs = 60_000): Promise<Buffer | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0 && !this.closed) {
      if (Date.now() > deadline) throw new Error('no response in time');
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 50);
      });
      this.waiter = undefined;
    }
    return this.frames.shift();
  }

  decode<Res>(frame: Buffer, codec: MessageCodec<Res>, apiKey: number, version: number): { correlationId: number; body: Res } {
    return readResponseFrame(frame, codec, apiKey, version);
  }

  async request<Req, Res>(reqCodec: MessageCodec<Req>, resCodec: MessageCodec<Res>, version: number, request: Req): Promise<Res> {
    this.sendRaw(this.frame(reqCodec, version, request));
    const frame = await this.nextFrame();
    if (frame === undefined) throw new Error('connection closed by the broker');
    return this.decode(frame, resCodec, reqCodec.apiKey, version).body;
  }

  close(): void {
    this.socket.destroy();
  }
}
