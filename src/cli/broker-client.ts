/** The Kafka client behind brook's inspection commands: one connection, one request at a time. */
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { readResponseFrame, requestFrame } from '../protocol/frames.js';
import type { MessageCodec } from '../protocol/messages/codec.js';
import { formatHostPort, parseHostPort } from '../server/host-port.js';
import { SETTINGS } from '../settings/settings.js';
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../protocol/messages/sasl-authenticate.js';
import { SaslHandshakeRequest, SaslHandshakeResponse } from '../protocol/messages/sasl-handshake.js';

/** Where the read-only commands ask by default: where `brook serve` listens by default. */
export const DEFAULT_BOOTSTRAP = formatHostPort(SETTINGS.host.default, SETTINGS.port.default);

const TIMEOUT_MS = 10_000;

export class BrokerClient {
  private received = Buffer.alloc(0);
  private correlationId = 0;
  private ended: Error | undefined;
  private wake: (() => void) | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly address: string,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake?.();
    });
    socket.on('error', (err) => (this.ended = new Error(`lost the connection to ${address} (${reason(err)})`)));
    socket.on('close', () => {
      this.ended ??= new Error(`the broker at ${address} closed the connection`);
      this.wake?.();
    });
  }

  static async connect(host: string, port: number): Promise<BrokerClient> {
    const address = formatHostPort(host, port);
    const socket = connect({ host, port, timeout: TIMEOUT_MS });
    socket.once('timeout', () => socket.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    try {
      await once(socket, 'connect');
    } catch (err) {
      throw new Error(`cannot reach a broker at ${address} (${reason(err)})`);
    }
    return new BrokerClient(socket, address);
  }

  /** Connects to `bootstrap` (HOST:PORT), runs `ask` and closes. */
  static async asking<R>(bootstrap: string, ask: (client: BrokerClient) => Promise<R>): Promise<R> {
    const { host, port } = parseHostPort(bootstrap);
    const client = await BrokerClient.connect(host, port);
    try {
      return await ask(client);
    } finally {
      client.close();
    }
  }

  async request<Req, Res>(requestCodec: MessageCodec<Req>, responseCodec: MessageCodec<Res>, version: number, request: Req): Promise<Res> {
    const correlationId = ++this.correlationId;
    this.socket.write(requestFrame(requestCodec, version, request, correlationId, 'brook-cli'));
    const response = readResponseFrame(await this.nextFrame(), responseCodec, requestCodec.apiKey, version);
    if (response.correlationId !== correlationId) throw new Error(`the broker at ${this.address} answered out of turn`);
    return response.body;
  }

  /** Authenticates as `user` with SASL/PLAIN, as a listener with --sasl-users-file requires. */
  async authenticatePlain(user: string, password: string): Promise<void> {
    const handshake = await this.request(SaslHandshakeRequest, SaslHandshakeResponse, 1, { mechanism: 'PLAIN' });
    if (handshake.errorCode !== 0) throw new Error(`the broker at ${this.address} does not take SASL/PLAIN (error ${handshake.errorCode})`);
    const answer = await this.request(SaslAuthenticateRequest, SaslAuthenticateResponse, 2, { authBytes: Buffer.from(`\0${user}\0${password}`) });
    if (answer.errorCode !== 0) throw new Error(`the broker at ${this.address} refused user '${user}': ${answer.errorMessage ?? `error ${answer.errorCode}`}`);
  }

  close(): void {
    this.socket.destroy();
  }

  private async nextFrame(): Promise<Buffer> {
    for (;;) {
      const end = this.received.length >= 4 ? 4 + this.received.readInt32BE(0) : Infinity;
      if (this.received.length >= end) {
        const frame = this.received.subarray(4, end);
        this.received = this.received.subarray(end);
        return frame;
      }
      if (this.ended !== undefined) throw this.ended;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

function reason(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}
