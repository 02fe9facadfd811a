/** The TCP listener: accepts connections within the limits and closes them all on stop. */
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { once } from 'node:events';
import { Connection, type ConnectionLimits, type FrameHandler } from './connection.js';
import { MemoryBudget } from './memory-budget.js';

export interface ServerLimits extends ConnectionLimits {
  readonly maxConnections: number;
  /** Kafka's connections.max.idle.ms: a connection silent this long is closed. */
  readonly idleTimeoutMs: number;
  /** Kafka's queued.max.request.bytes: memory for requests received only in part. */
  readonly maxPendingRequestBytes: number;
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
  private readonly budget: MemoryBudget;
  private nextId = 1;

  constructor(
    private readonly handler: FrameHandler,
    private readonly limits: ServerLimits,
    private readonly log: ServerLog,
    tls?: TlsListener,
  ) {
    this.budget = new MemoryBudget(limits.maxPendingRequestBytes);
    if (tls === undefined) {
      this.server = createServer({ noDelay: true }, (socket) => this.accept(socket));
    } else {
      const requestCert = tls.clientAuth !== 'none';
      const server = createTlsServer({ cert: tls.cert, key: tls.key, ca: tls.ca, requestCert, rejectUnauthorized: tls.clientAuth === 'required' }, (socket) => {
        socket.setNoDelay(true);
        this.accept(socket);
      });
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
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const connection of this.connections) connection.close();
    await closed;
  }

  private accept(socket: Socket): void {
    if (this.connections.size >= this.limits.maxConnections) {
      this.log.warn({ remote: socket.remoteAddress, limit: this.limits.maxConnections }, 'connection refused: too many connections');
      socket.destroy();
      return;
    }
    socket.setTimeout(this.limits.idleTimeoutMs, () => socket.destroy());
    const connection = new Connection(socket, this.nextId++, this.handler, this.limits, this.budget, {
      onProtocolError: (context, message) => this.log.warn({ connection: context.id, remote: context.remoteAddress }, `closing connection: ${message}`),
      onClose: (c) => this.connections.delete(c),
    });
    this.connections.add(connection);
  }
}
