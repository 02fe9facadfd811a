/** The TCP listener: accepts connections within the limits and closes them all on stop. */
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { once } from 'node:events';
import { Connection, type ConnectionLimits, type FrameHandler } from './connection.js';
import { clientAddress } from './host-port.js';
import { BufferPool } from '../memory/buffer-pool.js';
import { withLentReads } from './lent-reads.js';
import type { RequestMemoryPool } from './request-memory-pool.js';

/** Memory every plain-TCP read goes into, whichever the connection: reads are handled at once. */
const READ_BYTES = 64 * 1024;
/** Free memory kept for requests that arrive over several reads. */
const KEPT_FRAME_BYTES = 8 * 1024 * 1024;

export interface ServerLimits extends ConnectionLimits {
  readonly maxConnections: number;
  /** Kafka's max.connections.per.ip, and its overrides by client address. */
  readonly maxConnectionsPerAddress: number;
  readonly addressOverrides?: Readonly<Record<string, number>>;
  /** Kafka's connections.max.idle.ms: a connection silent this long is closed. */
  readonly idleTimeoutMs: number;
}

export interface TlsListener {
  /** PEM certificate chain and private key of the listener. */
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  /** PEM CA certificates that client certificates are checked against. */
  readonly ca?: string | Buffer;
  /** ssl.client.auth: whether clients must present a certificate signed by `ca`. */
  readonly clientAuth: 'none' | 'requested' | 'required';
}

export interface ServerLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export class TcpServer {
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
  /** Open connections by client address; an address leaves with its last connection. */
  private readonly byAddress = new Map<string, number>();
  private readonly addressLimits: ReadonlyMap<string, number>;
  private readonly frameMemory = new BufferPool(KEPT_FRAME_BYTES);
  private readonly readMemory = Buffer.allocUnsafeSlow(READ_BYTES);
  private nextId = 1;

  constructor(
    private readonly handler: FrameHandler,
    private readonly limits: ServerLimits,
    /** Kafka's queued.max.request.bytes: requests' memory from their size prefix until answered. */
    private readonly memory: RequestMemoryPool,
    private readonly log: ServerLog,
    tls?: TlsListener,
  ) {
    this.addressLimits = new Map(Object.entries(limits.addressOverrides ?? {}).map(([address, n]) => [clientAddress(address), n]));
    if (tls === undefined) {
      this.server = createServer({ pauseOnConnect: true }, (accepted) => this.acceptPlain(accepted));
    } else {
      const requestCert = tls.clientAuth !== 'none';
      const server = createTlsServer({ cert: tls.cert, key: tls.key, ca: tls.ca, requestCert, rejectUnauthorized: tls.clientAuth === 'required' }, (socket) =>
        this.acceptWithDataEvents(socket),
      );
      server.on('tlsClientError', (err, socket) => log.warn({ remote: socket.remoteAddress, err: err.message }, 'TLS handshake failed'));
      this.server = server;
    }
  }

  async listen(host: string, port: number): Promise<{ host: string; port: number }> {
    this.server.listen({ host, port });
    await Promise.race([once(this.server, 'listening'), once(this.server, 'error').then(([err]) => Promise.reject(err))]);
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('listener has no TCP address');
    return { host: address.address, port: address.port };
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  async close(): Promise<void> {
    // The listener's own count of connections does not see those read into lent memory: each is waited for here.
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    await Promise.all([closed, ...[...this.connections].map((connection) => connection.close())]);
  }

  /** A plain TCP connection, arriving paused, is read into lent memory where Node allows it. */
  private acceptPlain(accepted: Socket): void {
    let connection: Connection | undefined;
    const socket = withLentReads(accepted, {
      target: () => connection?.readTarget() ?? this.readMemory,
      received: (chunk) => connection?.received(chunk),
    });
    if (socket !== undefined) connection = this.accept(socket);
    else {
      this.acceptWithDataEvents(accepted);
      accepted.resume();
    }
  }

  private acceptWithDataEvents(socket: Socket): void {
    const connection = this.accept(socket);
    socket.on('data', (chunk: Buffer) => connection?.received(chunk));
  }

  private accept(socket: Socket): Connection | undefined {
    if (this.connections.size >= this.limits.maxConnections) {
      this.log.warn({ remote: socket.remoteAddress, limit: this.limits.maxConnections }, 'connection refused: too many connections');
      socket.destroy();
      return undefined;
    }
    // As Kafka's ConnectionQuotas: an address at its limit has the new connection closed at once.
    const address = clientAddress(socket.remoteAddress ?? '');
    const fromAddress = this.byAddress.get(address) ?? 0;
    const addressLimit = this.addressLimits.get(address) ?? this.limits.maxConnectionsPerAddress;
    if (fromAddress >= addressLimit) {
      this.log.warn({ remote: socket.remoteAddress, limit: addressLimit }, 'connection refused: too many connections from this address');
      socket.destroy();
      return undefined;
    }
    this.byAddress.set(address, fromAddress + 1);
    socket.setNoDelay(true);
    socket.setTimeout(this.limits.idleTimeoutMs, () => socket.destroy());
    const connection = new Connection(socket, this.nextId++, this.handler, this.limits, this.memory.requests, this.frameMemory, {
      onProtocolError: (context, message) => this.log.warn({ connection: context.id, remote: context.remoteAddress }, `closing connection: ${message}`),
      onClose: (c) => {
        this.connections.delete(c);
        const left = this.byAddress.get(address)! - 1;
        if (left === 0) this.byAddress.delete(address);
        else this.byAddress.set(address, left);
      },
    });
    this.connections.add(connection);
    return connection;
  }
}
