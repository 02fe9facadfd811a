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
  /** The thread answering now; none before the first call, nor after it ended for being idle. */
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private ended = false;
  private idleTimer: NodeJS.Timeout | undefined;

  /**
   * Calls to `module` (a path without its extension, as from `base`, a module's import.meta.url)
   * on a thread that keeps the process alive only while a call waits. With `idleEndMs`, the thread
   * ends once that long passes with no call, giving back its heap (which keeps what its busiest
   * moment took), and the next call starts another: for a module that keeps nothing from one call
   * to the next.
   */
  constructor(
    private readonly module: string,
    private readonly base: string,
    private readonly name: string,
    private readonly workerData?: unknown,
    private readonly idleEndMs?: number,
  ) {
    if (idleEndMs === undefined) this.worker = this.start();
  }

  /** Whether the thread has stopped on its own or been closed: it answers nothing more. */
  get exited(): boolean {
    return this.ended;
  }

  /** Whether a thread is running now: not before the first call, nor once it ended for being idle. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  call(request: unknown): Promise<unknown> {
    clearTimeout(this.idleTimer);
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    // Only a thread with calls under way keeps the process alive.
    if (this.pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, request });
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    this.ended = true;
    await this.worker?.terminate();
  }

  private start(): Worker {
    const url = new URL(`${this.module}${TYPESCRIPT ? '.ts' : '.js'}`, this.base);
    const workerData = this.workerData;
    const worker = TYPESCRIPT
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`,
          { eval: true, workerData },
        )
      : new Worker(url, { workerData });
    worker.on('message', ({ id, result, error }: Answer) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) this.idle(worker);
      if (error === undefined) waiting?.resolve(result);
      else waiting?.reject(Object.assign(new Error(error.message), { code: error.code }));
    });
    // A thread ended for being idle had nothing pending, and its successor answers from now on.
    worker.on('error', (err) => {
      if (worker === this.worker) this.failAll(err);
    });
    worker.on('exit', (code) => {
      if (worker !== this.worker) return;
      this.ended = true;
      this.failAll(new Error(`${this.name} exited with ${code}`));
    });
    // After the listeners, which would hold it again.
    worker.unref();
    return worker;
  }

  /** Nothing pending: the thread no longer holds the process, and ends once idle long enough. */
  private idle(worker: Worker): void {
    worker.unref();
    if (this.idleEndMs === undefined) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.worker = undefined;
      void worker.terminate();
    }, this.idleEndMs);
    this.idleTimer.unref();
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
