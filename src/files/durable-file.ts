/**
 * Small files replaced whole and atomically: a reader after any crash sees the old content or
 * the new, never a mix. For metadata, checkpoints, snapshots, and later committed offsets.
 */
import { open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Makes the directory's entries (created, renamed, removed files) durable. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes a temp file (with `mode`, if given), fsyncs it, renames it over `path` and fsyncs the directory. */
export async function writeFileDurably(path: string, data: Buffer | string, mode?: number): Promise<void> {
  const temp = `${path}.tmp`;
  const handle = await open(temp, 'w');
  try {
    // Set on the open file, as a temporary file a stop left behind keeps its own mode.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  await syncDir(dirname(path));
}

/** The file's bytes, or undefined if there is none. */
export async function readFileIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * A JSON document kept in one file. Writes are queued, so the last one written is the last one
 * asked for. A file that does not parse, or not into the document's form, is an error, not an
 * empty document: it is never silently replaced.
 */
export class DurableJsonFile<T> {
  private queue: Promise<void> = Promise.resolve();

  /** `holds` tells a document brook wrote from one edited or damaged into another shape. */
  constructor(
    readonly path: string,
    private readonly holds: (value: unknown) => value is T,
  ) {}

  async read(): Promise<T | undefined> {
    const bytes = await readFileIfExists(this.path);
    if (bytes === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      throw new Error(`${this.path} is not valid JSON: ${(err as Error).message}`);
    }
    if (!this.holds(value)) throw new Error(`${this.path} is JSON, but not of the form brook writes there`);
    return value;
  }

  write(value: T): Promise<void> {
    const text = `${JSON.stringify(value, null, 2)}\n`;
    const written = this.queue.then(() => writeFileDurably(this.path, text));
    this.queue = written.catch(() => {});
    return written;
  }
}

/** Whether `value` is a JSON object of version 1, the form every document brook writes starts from. */
export function isVersion1(value: unknown): value is { readonly version: 1; readonly [field: string]: unknown } {
  return isJsonObject(value) && value.version === 1;
}

/** Whether `value` is a JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
