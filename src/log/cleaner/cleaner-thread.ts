/** The broker's side of the cleaner's thread (clean-worker.ts): requests sent, answers awaited. */
import { Worker } from 'node:worker_threads';
import type { WorkRequest } from './clean-worker.js';
import type { CleanedCopy, SegmentFile } from './segment-work.js';

/** Whether this runs as TypeScript, under tsx (tests): the worker then needs tsx too. */
const TYPESCRIPT = import.meta.url.endsWith('.ts');
/** The worker's module beside this one. */
const WORKER = new URL(TYPESCRIPT ? './clean-worker.ts' : './clean-worker.js', import.meta.url);

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

export class CleanerThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(dedupeBufferBytes: number) {
    const workerData = { dedupeBufferBytes };
    this.worker = TYPESCRIPT
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER.href)}); })`,
          {
            eval: true,
            workerData,
          },
        )
      : new Worker(WORKER, { workerData });
    this.worker.unref();
    this.worker.on('message', ({ id, result, error }: { id: number; result?: unknown; error?: { message: string; code?: string } }) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (error === undefined) waiting?.resolve(result);
      else waiting?.reject(Object.assign(new Error(error.message), { code: error.code }));
    });
    this.worker.on('error', (err) => this.failAll(err));
    this.worker.on('exit', (code) => this.failAll(new Error(`the log cleaner's thread exited with ${code}`)));
  }

  clearMap(): Promise<void> {
    return this.call({ op: 'clear' }) as Promise<void>;
  }

  /** Puts the segment's keys in the offset map; false once it is full. */
  mapSegment(segment: SegmentFile): Promise<boolean> {
    return this.call({ op: 'map', segment }) as Promise<boolean>;
  }

  /** Writes the segment's cleaned copy beside it, judged by the offset map; undefined when nothing changes. */
  cleanSegment(
    segment: SegmentFile,
    tombstonesBefore: number,
    producerBatches: readonly number[],
    indexIntervalBytes: number,
  ): Promise<CleanedCopy | undefined> {
    return this.call({ op: 'clean', segment, tombstonesBefore, producerBatches, indexIntervalBytes }) as Promise<CleanedCopy | undefined>;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private call(request: WorkRequest): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, request });
    });
  }

  private failAll(err: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(err);
    this.pending.clear();
  }
}
