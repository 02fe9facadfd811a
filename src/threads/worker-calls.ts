/**
 * Calls to a module run on a worker thread, each answered by its id: the broker's side
 * (WorkerCalls) and the worker's (answerCalls).
 */
import { parentPort, Worker } from 'node:worker_threads';

/** Whether this runs as TypeScript, under tsx (tests): a worker then needs tsx too. */
const TYPESCRIPT = import.meta.url.endsWith('.ts');

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

interface Answer {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: { readonly message: string; readonly code?: string };
}

export class WorkerCalls {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private ended = false;

  /** Starts `module` (a path without its extension, as from `base`, a module's import.meta.url) on a thread that keeps the process alive only while a call waits. */
  constructor(module: string, base: string, name: string, workerData?: unknown) {
    const url = new URL(`${module}${TYPESCRIPT ? '.ts' : '.js'}`, base);
    this.worker = TYPESCRIPT
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`,
          { eval: true, workerData },
        )
      : new Worker(url, { workerData });
    this.worker.on('message', ({ id, result, error }: Answer) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) this.worker.unref();
      if (error === undefined) waiting?.resolve(result);
      else waiting?.reject(Object.assign(new Error(error.message), { code: error.code }));
    });
    this.worker.on('error', (err) => this.failAll(err));
    this.worker.on('exit', (code) => {
      this.ended = true;
      this.failAll(new Error(`${name} exited with ${code}`));
    });
    // After the listeners, which would hold it again.
    this.worker.unref();
  }

  /** Whether the thread has stopped: it answers nothing more. */
  get exited(): boolean {
    return this.ended;
  }

  call(request: unknown): Promise<unknown> {
    const id = this.nextId++;
    // Only a thread with calls under way keeps the process alive.
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, request });
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private failAll(err: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(err);
    this.pending.clear();
  }
}

/** On the worker thread: answers each call with what `work` makes of it, or the error it throws. */
export function answerCalls<Request>(work: (request: Request) => unknown): void {
  parentPort!.on('message', ({ id, request }: { id: number; request: Request }) => {
    Promise.resolve()
      .then(() => work(request))
      .then(
        (result) => parentPort!.postMessage({ id, result }),
        (err: NodeJS.ErrnoException) => parentPort!.postMessage({ id, error: { message: err.message, code: err.code } }),
      );
  });
}
