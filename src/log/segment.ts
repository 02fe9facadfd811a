/**
 * One segment of a partition log: `<base offset>.log` holding batches back to back, and its
 * sparse `<base offset>.index`. Only the newest (active) segment is appended to; older ones are
 * opened for reading on demand and closed again by SegmentCache.
 */
import { constants } from 'node:fs';
import { open, readFile, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { batchTime, type BatchHeader } from '../protocol/record-batch.js';
import { scanBatches, writeAllAt } from './batch-file.js';
import { INDEX_ENTRY_SIZE, OffsetIndex } from './offset-index.js';

const OFFSET_DIGITS = 20;

/** Kafka's naming: the base offset in 20 digits, e.g. 00000000000000000000.log. */
export function offsetFileName(offset: number, suffix: string): string {
  return String(offset).padStart(OFFSET_DIGITS, '0') + suffix;
}

/** The offset a file name of offsetFileName's form holds; undefined for other names, and for offsets past 2⁵³ that brook never writes. */
export function parseOffsetFileName(name: string, suffix: string): number | undefined {
  if (name.length !== OFFSET_DIGITS + suffix.length || !name.endsWith(suffix)) return undefined;
  const digits = name.slice(0, OFFSET_DIGITS);
  const offset = Number(digits);
  return /^\d+$/.test(digits) && Number.isSafeInteger(offset) ? offset : undefined;
}

/** Where a segment's appends stood, to roll back to (Segment.rollBack). */
export interface AppendMark {
  readonly size: number;
  readonly indexEntries: number;
  readonly lastIndexedPosition: number;
  readonly largestTimestamp: number | undefined;
  readonly firstTimestamp: number | undefined;
}

/** Neither truncating nor appending-only: positional writes must land where asked. */
const READ_WRITE_CREATE = constants.O_RDWR | constants.O_CREAT;

export class Segment {
  readonly logPath: string;
  readonly indexPath: string;
  /** Bytes, counting batches queued but not yet written. */
  size: number;
  /** Bytes in the file. */
  written: number;
  /**
   * Where the batches this process checked begin: recovery's scan, or appends (checked as they
   * were produced), placed them. The batches before were trusted unread: a read checks their CRC.
   */
  readonly checkedFrom: number;
  /** Index entries in the index file. */
  indexWritten: number;
  /** Index entries made for the batches in the file: written out at the next sync with the index. */
  private indexMade: number;
  /** Largest batch time (batchTime); undefined until asked for, on an old segment. */
  largestTimestamp: number | undefined;
  /** Time of the first batch: segment.ms counts from it. */
  firstTimestamp: number | undefined;
  /** Producer state at the base offset, as it stood when this segment was rolled (encoded meanwhile), until it is stored. */
  rollSnapshot: Promise<Buffer> | undefined;
  deleted = false;
  /** The cleaned segment that took this one's place (with others, perhaps), once compaction replaced it. */
  replacedBy: Segment | undefined;
  private loadedIndex: OffsetIndex | undefined;
  private lastIndexedPosition: number;
  private log: Promise<FileHandle> | undefined;
  /** The log file while it is open for appending: writes go to it at once. */
  private appending: FileHandle | undefined;
  private indexFile: FileHandle | undefined;
  private users = 0;

  constructor(
    dir: string,
    readonly baseOffset: number,
    size: number,
    index?: OffsetIndex,
    /** After the files' names: a segment being written beside the one it will replace. */
    suffix = '',
  ) {
    this.logPath = join(dir, offsetFileName(baseOffset, '.log') + suffix);
    this.indexPath = join(dir, offsetFileName(baseOffset, '.index') + suffix);
    this.size = size;
    this.written = size;
    this.checkedFrom = size;
    this.loadedIndex = index;
    this.indexWritten = index?.entries ?? 0;
    this.indexMade = this.indexWritten;
    this.lastIndexedPosition = index?.last.position ?? 0;
  }

  /**
   * Opens the files for appending: `fresh` creates them empty; otherwise they are cut to what
   * recovery vouched for (`size` bytes, the in-memory index's first `indexWritten` entries),
   * and the index entries recovery added are written.
   */
  async openForAppend(fresh: boolean): Promise<void> {
    await this.close();
    const flags = fresh ? 'w+' : READ_WRITE_CREATE;
    // Settled, so that when one cannot be opened (too many open files, say) the other is closed.
    const opened = await Promise.allSettled([open(this.logPath, flags), open(this.indexPath, flags)]);
    const failed = opened.find((o) => o.status === 'rejected');
    if (failed !== undefined) {
      await Promise.all(opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value.close()] : [])));
      throw failed.reason;
    }
    const [log, index] = opened.map((o) => (o as PromiseFulfilledResult<FileHandle>).value) as [FileHandle, FileHandle];
    this.log = Promise.resolve(log);
    this.appending = log;
    this.indexFile = index;
    if (fresh) return;
    await Promise.all([log.truncate(this.size), index.truncate(this.indexWritten * INDEX_ENTRY_SIZE)]);
    this.written = this.size;
    this.indexMade = this.appendIndex.entries;
    this.writeIndexEntries();
  }

  /** Makes room for a batch at the end of the segment; the index gains an entry every `intervalBytes`. */
  place(baseOffset: number, header: BatchHeader, intervalBytes: number): void {
    const position = this.size;
    const index = this.appendIndex;
    if (position - this.lastIndexedPosition >= intervalBytes) {
      index.append(baseOffset - this.baseOffset, position, this.largestTimestamp ?? -1);
      this.lastIndexedPosition = position;
    }
    this.size += header.size;
    this.largestTimestamp = Math.max(this.largestTimestamp ?? -1, batchTime(header));
    this.firstTimestamp ??= batchTime(header);
  }

  get appendIndex(): OffsetIndex {
    if (this.loadedIndex === undefined) throw new Error(`segment ${this.logPath} is not open for appending`);
    return this.loadedIndex;
  }

  /** Where appends stand now, for rollBack. */
  mark(): AppendMark {
    const { size, lastIndexedPosition, largestTimestamp, firstTimestamp } = this;
    return { size, indexEntries: this.appendIndex.entries, lastIndexedPosition, largestTimestamp, firstTimestamp };
  }

  /**
   * Undoes the appends made since `mark`: the log file is cut back to it and the index entries
   * made since are dropped. Only for a segment whose index file is not written until it is
   * sealed (the cleaner's copy): the entries dropped must not be in the file yet.
   */
  async rollBack(mark: AppendMark): Promise<void> {
    if (this.appending === undefined || this.indexWritten > mark.indexEntries) throw new Error(`segment ${this.logPath} cannot roll back to ${mark.size}`);
    await this.appending.truncate(mark.size);
    this.size = this.written = mark.size;
    this.appendIndex.truncate(mark.indexEntries);
    this.indexMade = Math.min(this.indexMade, mark.indexEntries);
    this.lastIndexedPosition = mark.lastIndexedPosition;
    this.largestTimestamp = mark.largestTimestamp;
    this.firstTimestamp = mark.firstTimestamp;
  }

  /**
   * Writes `buffers` at the end of the file. The index entries made for them wait for the next
   * sync with the index: recovery trusts the index only below a checkpoint, which is such a sync,
   * and a write saved per batch is a system call saved on the produce path.
   */
  write(buffers: Buffer[], indexEntries: number): void {
    if (this.appending === undefined) throw new Error(`segment ${this.logPath} is not open for appending`);
    this.written += writeAllAt(this.appending, buffers, this.written);
    this.indexMade = indexEntries;
  }

  /** fsyncs the log; `withIndex` first writes the index entries made so far and fsyncs them too. */
  async sync(withIndex: boolean): Promise<void> {
    const log = await this.logHandle();
    if (withIndex) this.writeIndexEntries();
    await Promise.all([log.datasync(), withIndex ? this.indexFile?.datasync() : undefined]);
  }

  private writeIndexEntries(): void {
    if (this.indexMade === this.indexWritten) return;
    const index = this.indexFile;
    if (index === undefined) throw new Error(`segment ${this.logPath} is not open for appending`);
    const entries = this.appendIndex.bytes(this.indexWritten, this.indexMade);
    if (entries.length > 0) writeAllAt(index, [entries], this.indexWritten * INDEX_ENTRY_SIZE);
    this.indexWritten = this.indexMade;
  }

  /** Done with appending: everything fsynced, the index file closed. */
  async seal(): Promise<void> {
    await this.sync(true);
    await this.indexFile?.close();
    this.indexFile = undefined;
  }

  async index(): Promise<OffsetIndex> {
    if (this.loadedIndex === undefined) {
      const bytes = await readFile(this.indexPath).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return Buffer.alloc(0);
        throw err;
      });
      this.loadedIndex ??= OffsetIndex.fromBytes(bytes, this.size);
    }
    return this.loadedIndex;
  }

  /** Runs `fn` with the log file open; SegmentCache closes it only when nobody uses it. */
  async use<T>(fn: (log: FileHandle) => Promise<T>): Promise<T> {
    this.users++;
    try {
      return await fn(await this.logHandle());
    } finally {
      this.users--;
    }
  }

  /** Largest batch time: from the last index entry on, a short scan. */
  async largest(): Promise<number> {
    if (this.largestTimestamp === undefined) {
      const from = (await this.index()).last;
      let largest = from.timestampBefore;
      await this.use((log) =>
        scanBatches(log, { from: from.position, to: this.size, verify: false }, (header) => {
          largest = Math.max(largest, batchTime(header));
        }),
      );
      this.largestTimestamp = largest;
    }
    return this.largestTimestamp;
  }

  /** When the file was last written: retention's measure of a segment none of whose batches has a time. */
  async modifiedMs(): Promise<number> {
    return (await stat(this.logPath)).mtimeMs;
  }

  get idle(): boolean {
    return this.users === 0 && this.indexFile === undefined;
  }

  /** Closes the file and forgets the index of an idle old segment; both come back on demand. */
  async unload(): Promise<void> {
    const log = this.log;
    this.log = undefined;
    this.appending = undefined;
    this.loadedIndex = undefined;
    if (log !== undefined) await (await log).close();
  }

  /** Closes everything; pending reads finish first. */
  async close(): Promise<void> {
    await this.indexFile?.close();
    this.indexFile = undefined;
    const log = this.log;
    this.log = undefined;
    this.appending = undefined;
    if (log !== undefined) await (await log.catch(() => undefined))?.close();
  }

  /**
   * Replaced by `cleaned`, whose files are about to take its files' names. Open for a reader, it
   * goes on serving the readers that hold it from the files it has open, and never opens them
   * again; never opened, it is gone at once, with no file opened for it, as a cleaning may replace
   * thousands of small segments at a time.
   */
  async retire(cleaned: Segment): Promise<void> {
    this.replacedBy = cleaned;
    if (this.log !== undefined) {
      await this.index();
      await this.logHandle();
    }
    this.deleted = true;
  }

  async delete(): Promise<void> {
    this.deleted = true;
    await this.close();
    await Promise.all([rm(this.logPath, { force: true }), rm(this.indexPath, { force: true })]);
  }

  private logHandle(): Promise<FileHandle> {
    if (this.log === undefined) {
      if (this.deleted) return Promise.reject(new Error(`segment ${this.logPath} is deleted or replaced`));
      const opening = open(this.logPath, 'r');
      this.log = opening;
      opening.catch(() => {
        if (this.log === opening) this.log = undefined;
      });
    }
    return this.log;
  }
}

/** Closes the segments of a partition whose start failed, each whatever becomes of the others. */
export async function closeSegments(segments: readonly Segment[]): Promise<void> {
  await Promise.all(segments.map((segment) => segment.close().catch(() => {})));
}

/** Keeps at most `limit` old segments open, closing the least recently read. */
export class SegmentCache {
  private readonly recent = new Set<Segment>();

  constructor(private readonly limit: number) {}

  touch(segment: Segment): void {
    // A retired segment keeps its files open until it is closed.
    if (segment.deleted) return;
    this.recent.delete(segment);
    this.recent.add(segment);
    for (const old of this.recent) {
      if (this.recent.size <= this.limit) break;
      if (!old.idle || old === segment) continue;
      this.recent.delete(old);
      old.unload().catch(() => {});
    }
  }

  forget(segment: Segment): void {
    this.recent.delete(segment);
  }
}
