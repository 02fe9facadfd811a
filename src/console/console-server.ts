/**
 * The web console: an HTTP (HTTPS with the broker's TLS certificate) server beside the broker,
 * serving the page and its JSON API (README, "Web console"). It reads the broker's state through
 * the broker's own modules and makes changes through its Kafka API handlers; with SASL users,
 * nothing but the login is answered before a user logs in.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { once } from 'node:events';
import type { BrokerContext } from '../broker/broker-context.js';
import { formatHostPort } from '../server/host-port.js';
import { listenError } from '../server/listen-error.js';
import { ApiError } from './api-input.js';
import { describeGroup, listGroups } from './groups-api.js';
import { LiveEvents } from './live-events.js';
import { LOGIN_COOKIE, Logins } from './logins.js';
import { aclPrincipal, userPrincipal } from '../broker/principal.js';
import { browseMessages, oneMessage, produceMessage } from './messages-api.js';
import { MetricSamples } from './metric-samples.js';
import { overview } from './overview-api.js';
import { listProducers } from './producers-api.js';
import { replayLines } from './replay-api.js';
import { alterTopicConfig, createTopic, deleteTopic, describeTopic, listTopics } from './topics-api.js';
import { listTransactions } from './transactions-api.js';
import { loadWebFiles, type WebFile, type WebFiles } from './web-files.js';
import { clientAddress } from '../server/host-port.js';

export interface ConsoleOptions {
  readonly host: string;
  readonly port: number;
  readonly startedAt: number;
}

export interface ConsoleServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** Largest JSON body taken: a message produced from the page is at most about this. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const SAMPLE_MS = 5000;
/** An hour of samples. */
const SAMPLES_KEPT = 720;

interface Call {
  readonly broker: BrokerContext;
  readonly params: readonly string[];
  readonly query: URLSearchParams;
  readonly body: unknown;
  readonly remoteAddress: string;
}

type Route = readonly [method: string, path: RegExp, answer: (call: Call) => unknown];

const NAME = '([^/]+)';

export async function serveConsole(broker: BrokerContext, options: ConsoleOptions): Promise<ConsoleServer> {
  const web = await loadWebFiles();
  const samples = new MetricSamples(broker.metrics, SAMPLE_MS, SAMPLES_KEPT);
  const events = new LiveEvents(broker.producerActivity, broker.transactions, samples);
  const logins = broker.credentials === undefined || broker.sasl === undefined ? undefined : new Logins(broker.credentials, broker.sasl.logins);
  const tls = broker.config.tls;
  let url = '';
  const routes: Route[] = [
    ['GET', /^\/api\/overview$/, () => overview(broker, options.startedAt, samples, { url })],
    ['GET', /^\/api\/topics$/, (c) => listTopics(c.broker, c.query)],
    ['POST', /^\/api\/topics$/, (c) => createTopic(c.broker, c.body, c.remoteAddress)],
    ['GET', new RegExp(`^/api/topics/${NAME}$`), (c) => describeTopic(c.broker, c.params[0]!, c.query)],
    ['DELETE', new RegExp(`^/api/topics/${NAME}$`), (c) => deleteTopic(c.broker, c.params[0]!, c.remoteAddress)],
    ['POST', new RegExp(`^/api/topics/${NAME}/configs$`), (c) => alterTopicConfig(c.broker, c.params[0]!, c.body, c.remoteAddress)],
    ['GET', new RegExp(`^/api/topics/${NAME}/partitions/${NAME}/messages$`), (c) => browseMessages(c.broker, c.params[0]!, c.params[1]!, c.query)],
    [
      'POST',
      new RegExp(`^/api/topics/${NAME}/partitions/${NAME}/messages$`),
      (c) => produceMessage(c.broker, c.params[0]!, c.params[1]!, c.body, c.remoteAddress),
    ],
    ['GET', new RegExp(`^/api/topics/${NAME}/partitions/${NAME}/messages/${NAME}$`), (c) => oneMessage(c.broker, c.params[0]!, c.params[1]!, c.params[2]!)],
    ['GET', /^\/api\/groups$/, (c) => listGroups(c.broker, c.query)],
    ['GET', new RegExp(`^/api/groups/${NAME}$`), (c) => describeGroup(c.broker, c.params[0]!)],
    ['GET', /^\/api\/producers$/, (c) => listProducers(c.broker, c.query)],
    ['GET', /^\/api\/transactions$/, (c) => listTransactions(c.broker, c.query)],
    ['POST', /^\/api\/replay$/, (c) => replayLines(c.body)],
  ];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { pathname, searchParams } = new URL(req.url ?? '/', 'http://console');
    const method = req.method ?? 'GET';
    if (!pathname.startsWith('/api/')) return serveFile(web, pathname, method, res);
    if (pathname === '/api/session' && method === 'GET') {
      const user = logins?.userOf(req.headers.cookie) ?? null;
      return json(res, 200, { loginRequired: logins !== undefined, user });
    }
    // A JSON body is what the page sends: a form posted from another site cannot be one without CORS' leave.
    const body = method === 'GET' || method === 'DELETE' ? undefined : await jsonBody(req);
    if (pathname === '/api/login' && method === 'POST') return login(logins, body, tls !== undefined, clientAddress(req.socket.remoteAddress ?? ''), res);
    if (pathname === '/api/logout' && method === 'POST') {
      logins?.logout(req.headers.cookie);
      return json(res, 200, {}, { 'set-cookie': cookie('', tls !== undefined, 0) });
    }
    const user = logins?.userOf(req.headers.cookie);
    if (logins !== undefined && user === undefined) throw new ApiError(401, 'log in first');
    // The console shows and changes everything, past any ACL: with an authorizer, it is a super user's.
    if (broker.authorizer !== undefined && !broker.authorizer.policy.superUsers.has(aclPrincipal(userPrincipal(user)))) {
      throw new ApiError(403, 'with --authorizer, only a super user may use the console');
    }
    if (pathname === '/api/events' && method === 'GET') {
      if (!events.open(req, res)) throw new ApiError(503, 'too many live views open');
      return;
    }
    for (const [m, path, answer] of routes) {
      const match = path.exec(pathname);
      if (match === null || m !== method) continue;
      const params = match.slice(1).map(decodePart);
      return json(res, 200, await answer({ broker, params, query: searchParams, body, remoteAddress: req.socket.remoteAddress ?? '' }));
    }
    throw new ApiError(404, `no ${method} ${pathname} in the console's API`);
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    res.setHeader('content-security-policy', web.policy);
    const answer = misdirected(options.host, req.headers.host)
      ? Promise.reject(new ApiError(421, 'this console answers to loopback names only'))
      : handle(req, res);
    answer.catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof ApiError) return json(res, err.status, { error: err.message });
      broker.logger.error({ err }, 'console request failed');
      json(res, 500, { error: (err as Error).message });
    });
  };
  const server: Server = tls === undefined ? createHttpServer(listener) : createHttpsServer({ cert: tls.cert, key: tls.key }, listener);
  server.listen({ host: options.host, port: options.port });
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err))]);
  } catch (err) {
    events.close();
    samples.stop();
    throw listenError('the console', options.host, options.port, err);
  }
  const port = (server.address() as { port: number }).port;
  url = `${tls === undefined ? 'http' : 'https'}://${formatHostPort(options.host, port)}/`;
  return {
    port,
    url,
    close() {
      events.close();
      samples.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

function serveFile(web: WebFiles, pathname: string, method: string, res: ServerResponse): void {
  if (method !== 'GET' && method !== 'HEAD') throw new ApiError(405, `${method} is not served here`);
  // Every other path is a view's URL, which the page itself shows.
  const file: WebFile = pathname.startsWith('/assets/') || pathname.startsWith('/vendor/') ? (web.files.get(pathname) ?? notFound(pathname)) : web.page;
  res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length });
  res.end(method === 'HEAD' ? undefined : file.body);
}

/**
 * Whether a console on a loopback address is asked by another name: a page of some site whose name
 * was made to point at 127.0.0.1 (DNS rebinding) would otherwise read and change the broker.
 */
function misdirected(bound: string, hostHeader: string | undefined): boolean {
  if (!isLoopback(bound)) return false;
  const name = (hostHeader ?? '').replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  return !isLoopback(name);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new ApiError(400, `${part} is not a well-formed URL part`);
  }
}

function notFound(pathname: string): never {
  throw new ApiError(404, `no file ${pathname}`);
}

async function login(logins: Logins | undefined, body: unknown, secure: boolean, address: string, res: ServerResponse): Promise<void> {
  if (logins === undefined) return json(res, 200, { user: null });
  const { user, password } = (body ?? {}) as { user?: unknown; password?: unknown };
  if (typeof user !== 'string' || typeof password !== 'string') throw new ApiError(400, 'user and password must be strings');
  const token = await logins.login(user, password, address);
  if (token === undefined) throw new ApiError(401, 'wrong user or password');
  json(res, 200, { user }, { 'set-cookie': cookie(token, secure, undefined) });
}

function cookie(token: string, secure: boolean, maxAge: number | undefined): string {
  return `${LOGIN_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}${maxAge === undefined ? '' : `; Max-Age=${maxAge}`}`;
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) throw new ApiError(415, 'send JSON (content-type: application/json)');
  const tooLarge = (): ApiError => new ApiError(413, `a body may be at most ${MAX_BODY_BYTES} bytes`);
  // Answered before the body is read, Node reads the rest and drops it, so the client hears the answer.
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', resolve);
    req.on('error', reject);
  });
  if (size > MAX_BODY_BYTES) throw tooLarge();
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ApiError(400, 'the body is not JSON');
  }
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(body);
}
