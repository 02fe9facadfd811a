/**
 * The broker's one budget for work in flight (Kafka's queued.max.request.bytes, as its
 * `SocketServer` hands it to a `SimpleMemoryPool`): requests from their size prefix until they are
 * answered, the records the checks thread decompresses, and Fetch answers' log bytes until they
 * are written. A grant is taken before the memory is: what does not fit waits, first come first
 * served, and never passes the budget (Kafka's pool, not strict, lets one request past it).
 *
 * Decompression has a share of its own, which requests cannot take: a request waiting for the
 * checks thread holds its grant until its records are checked, so decompressions that waited
 * behind requests could wait for ever.
 */

/** Memory taken from the pool, or waited for. */
export interface MemoryGrant {
  readonly bytes: number;
  /** Whether the memory is had; until then `granted` (given to take()) is still to be called. */
  readonly granted: boolean;
  /** Gives the memory back, or stops waiting for it; a second call does nothing. */
  release(): void;
  /**
   * A granted grant made to hold `bytes`: less gives the rest back; more is taken only if nothing
   * waits and it fits, else nothing changes. Whether it holds `bytes` now.
   */
  resize(bytes: number): boolean;
}

class Grant implements MemoryGrant {
  granted = false;
  released = false;
  constructor(
    private readonly lane: Lane,
    public bytes: number,
    readonly onGranted: () => void,
  ) {}

  release(): void {
    if (this.released) return;
    this.released = true;
    this.lane.returned(this);
  }

  resize(bytes: number): boolean {
    if (!this.granted || this.released) throw new Error('only memory held can be resized');
    return this.lane.resized(this, bytes);
  }
}

/** Takers of one share of the pool, granted in the order they asked. */
export class Lane {
  private held = 0;
  private readonly waiting: Grant[] = [];
  /** Called once memory is given back next: work that made do with less may try for more. */
  private onFreed: (() => void)[] = [];

  constructor(
    private readonly pool: RequestMemoryPool,
    /** The most this share holds at once. */
    readonly limit: number,
  ) {}

  /**
   * `bytes` of this share (at most its limit): granted at once if nothing waits before and they
   * fit, else `granted` is called once they are, in the order asked.
   */
  take(bytes: number, granted: () => void): MemoryGrant {
    if (bytes > this.limit) throw new RangeError(`${bytes} bytes do not fit a share of ${this.limit}`);
    const grant = new Grant(this, bytes, granted);
    if (this.waiting.length === 0 && this.fits(bytes)) this.give(grant);
    else this.waiting.push(grant);
    return grant;
  }

  /** `bytes` now if nothing waits and they fit, else nothing: for work that makes do with less. */
  tryTake(bytes: number): MemoryGrant | undefined {
    if (this.waiting.length > 0 || !this.fits(bytes)) return undefined;
    const grant = new Grant(this, bytes, noop);
    this.give(grant);
    return grant;
  }

  /** What could be taken now without waiting. */
  get available(): number {
    return this.waiting.length > 0 ? 0 : this.limit - this.held;
  }

  /** Resolves once memory is next given back to this share. */
  freed(): Promise<void> {
    return new Promise((resolve) => this.onFreed.push(resolve));
  }

  returned(grant: Grant): void {
    if (!grant.granted) {
      this.waiting.splice(this.waiting.indexOf(grant), 1);
      this.grantWaiting();
    } else {
      this.held -= grant.bytes;
      this.pool.count(-grant.bytes);
      this.grantWaiting();
      this.tellFreed();
    }
  }

  resized(grant: Grant, bytes: number): boolean {
    const more = bytes - grant.bytes;
    if (more > 0 && (this.waiting.length > 0 || !this.fits(more))) return false;
    grant.bytes = bytes;
    this.held += more;
    this.pool.count(more);
    if (more < 0) {
      this.grantWaiting();
      this.tellFreed();
    }
    return true;
  }

  private tellFreed(): void {
    const freed = this.onFreed;
    this.onFreed = [];
    for (const resolve of freed) resolve();
  }

  private grantWaiting(): void {
    const ready: Grant[] = [];
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.bytes)) {
      const next = this.waiting.shift()!;
      this.give(next);
      ready.push(next);
    }
    for (const next of ready) next.onGranted();
  }

  private fits(bytes: number): boolean {
    return this.held + bytes <= this.limit;
  }

  private give(grant: Grant): void {
    grant.granted = true;
    this.held += grant.bytes;
    this.pool.count(grant.bytes);
  }
}

const noop = (): void => {};

export class RequestMemoryPool {
  private usedBytes = 0;
  private peakBytes = 0;
  /** Requests as they arrive. */
  readonly requests: Lane;
  /** Records being decompressed on the checks thread. */
  readonly decompression: Lane;

  /**
   * `capacity` (at least `maxRequestBytes`, as Kafka's KafkaConfig requires) shared so that the
   * largest request always fits, and decompression gets `decompressionBytes` (what one request's
   * records take while they are decompressed), or what is left.
   */
  constructor(
    readonly capacity: number,
    maxRequestBytes: number,
    decompressionBytes: number,
  ) {
    if (capacity < maxRequestBytes) throw new RangeError(`a pool of ${capacity} bytes cannot hold a request of ${maxRequestBytes}`);
    const decompression = Math.min(decompressionBytes, capacity - maxRequestBytes);
    this.decompression = new Lane(this, decompression);
    this.requests = new Lane(this, capacity - decompression);
  }

  /** Bytes granted now. */
  get used(): number {
    return this.usedBytes;
  }

  /** The most granted at once so far. */
  get peak(): number {
    return this.peakBytes;
  }

  count(bytes: number): void {
    this.usedBytes += bytes;
    if (this.usedBytes > this.peakBytes) this.peakBytes = this.usedBytes;
  }
}
