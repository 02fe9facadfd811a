/** The HTTP endpoint Prometheus scrapes: GET /metrics answers with a registry's text exposition. */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { Registry } from 'prom-client';
import { listenError } from '../server/listen-error.js';

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
    throw listenError('metrics', host, port, err);
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
