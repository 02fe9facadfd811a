/**
 * Server-sent events for the console's live views: which partitions' producers and which
 * transactional ids changed (at most every FLUSH_MS) and each new metrics sample. Bounded: at most MAX_STREAMS at once, and a stream
 * whose reader falls MAX_UNSENT_BYTES behind is closed (the browser's EventSource reconnects).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProducerActivity } from '../broker/producer-activity.js';
import type { MetricSamples } from './metric-samples.js';

const MAX_STREAMS = 100;
const MAX_UNSENT_BYTES = 256 * 1024;
const FLUSH_MS = 200;
const KEEP_ALIVE_MS = 15_000;
/** Past this many changed partitions in one flush, the event says "all" instead of naming them. */
const MAX_NAMED = 200;

/** What tells of changed transactional ids (the broker's transaction coordinator). */
interface ChangeSource {
  listen(listener: (transactionalId: string) => void): () => void;
}

export class LiveEvents {
  private readonly streams = new Set<ServerResponse>();
  private changed = new Map<string, { topic: string; partition: number }>();
  private overflow = false;
  private transactionsChanged = false;
  private readonly timers: NodeJS.Timeout[];
  private readonly stopListening: (() => void)[];

  constructor(activity: ProducerActivity, transactions: ChangeSource, samples: MetricSamples) {
    this.stopListening = [
      activity.listen(({ topic, partition }) => {
        if (this.changed.size >= MAX_NAMED) this.overflow = true;
        else this.changed.set(`${partition}:${topic}`, { topic, partition });
      }),
      transactions.listen(() => (this.transactionsChanged = true)),
      samples.listen((sample) => this.send('sample', sample)),
    ];
    this.timers = [setInterval(() => this.flush(), FLUSH_MS).unref(), setInterval(() => this.write(': keep-alive\n\n'), KEEP_ALIVE_MS).unref()];
  }

  /** Answers `req` with an event stream; false when there are too many. */
  open(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.streams.size >= MAX_STREAMS) return false;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write('retry: 2000\n\n');
    this.streams.add(res);
    req.on('close', () => this.streams.delete(res));
    return true;
  }

  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    for (const stop of this.stopListening) stop();
    for (const res of this.streams) res.end();
    this.streams.clear();
  }

  private flush(): void {
    if (this.transactionsChanged) this.send('transactions', {});
    this.transactionsChanged = false;
    if (this.changed.size === 0 && !this.overflow) return;
    this.send('producers', this.overflow ? { all: true } : { partitions: [...this.changed.values()] });
    this.changed = new Map();
    this.overflow = false;
  }

  private send(event: string, data: unknown): void {
    this.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  private write(text: string): void {
    for (const res of this.streams) {
      if (res.writableLength > MAX_UNSENT_BYTES) {
        this.streams.delete(res);
        res.destroy();
      } else res.write(text);
    }
  }
}
