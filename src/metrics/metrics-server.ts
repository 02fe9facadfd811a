/** The HTTP endpoint Prometheus scrapes: GET /metrics answers with a registry's text exposition. */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { Registry } from 'prom-client';
import { formatHostPort } from '../server/host-port.js';

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function serveMetrics(registry: Registry, host: string, port: number): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('metrics are at /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err.message}\n`),
    );
  });
  server.listen({ host, port });
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err))]);
  } catch (err) {
    // Named as the metrics listener, so it is not taken for the broker's own port.
    const { code, message } = err as NodeJS.ErrnoException;
    throw Object.assign(new Error(`cannot serve metrics on ${formatHostPort(host, port)}: ${message}`), { code });
  }
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('metrics listener has no TCP address');
  return {
    port: address.port,
    close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A scraper's keep-alive connection would otherwise hold the port until it times out.
      server.closeAllConnections();
      return closed;
    },
  };
}
