/**
 * One broker per data directory: a `.lock` file (`.lock.<n>` after takeovers) holding the owner's
 * process id and, where /proc tells it, the owner's start time, created exclusively. A lock whose
 * process is gone (a kill -9) is taken over. The start time tells a reused process id apart: in a
 * container the broker restarted after a kill -9 often gets the dead one's id back (often 1).
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class DirectoryInUseError extends Error {
  override readonly name = 'DirectoryInUseError';
  /** `pid`: the owner's; absent when other starters kept taking the lock first. */
  constructor(
    readonly dir: string,
    readonly pid?: number,
  ) {
    // In one process, the owner is a broker started there before and not yet closed.
    const owner = pid === process.pid ? 'a broker in this process, not yet closed' : `process ${pid}`;
    super(`data directory ${dir} is ${pid === undefined ? 'being locked by another process' : `in use by ${owner}`}`);
  }
}

/** The process's start time in clock ticks since boot (field 22 of /proc/PID/stat); undefined without /proc. */
async function startTime(pid: number | 'self'): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // The command name (field 2) is in parentheses and may hold spaces: count from its end.
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process a lock names still runs: its id is taken, and by the same process when the lock has a start time. */
async function ownerRuns(pid: number, started: string | undefined): Promise<boolean> {
  if (!alive(pid)) return false;
  if (started === undefined) return true;
  const now = await startTime(pid);
  return now === undefined || now === started;
}

/** The file's text; undefined if it is gone. */
async function readIfThere(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
}

/** The owner a lock's text names, and whether it still runs. */
async function ownerIn(text: string): Promise<{ pid: number; runs: boolean }> {
  const [id, started] = text.trim().split(' ');
  const pid = Number(id);
  return { pid, runs: Number.isInteger(pid) && pid > 0 && (await ownerRuns(pid, started)) };
}

/** The lock's owner and whether it still runs; undefined if the lock file is gone. */
async function owner(path: string): Promise<{ pid: number; runs: boolean } | undefined> {
  const text = await readIfThere(path);
  return text === undefined ? undefined : ownerIn(text);
}

const LOCK = '.lock';
/** A starter's lock content, written before it is linked as the lock. */
const STARTER_FILE = /^\.lock\.[0-9a-f-]{36}\.tmp$/;
/** Longer than a starter takes to write its file whole: one still not whole after this is a killed starter's. */
const HALF_WRITTEN_MS = 60_000;

/** Generation 0 is `.lock`; a lock taken over from a dead owner's generation g is `.lock.<g+1>`. */
function lockName(generation: number): string {
  return generation === 0 ? LOCK : `${LOCK}.${generation}`;
}

function generationOf(name: string): number | undefined {
  if (name === LOCK) return 0;
  const digits = /^\.lock\.(\d{1,9})$/.exec(name)?.[1];
  return digits === undefined ? undefined : Number(digits);
}

async function generations(dir: string): Promise<number[]> {
  return (await readdir(dir)).flatMap((name) => generationOf(name) ?? []).sort((a, b) => a - b);
}

/**
 * Takes the directory's lock; resolves to its release. A lock file appears whole (linked from one
 * written first) and is never replaced: a dead owner's lock is taken over by creating the next
 * generation's file, which only one starter can do; dead owners' older generations are removed after.
 */
export async function lockDirectory(dir: string): Promise<() => Promise<void>> {
  // The nonce tells this lock apart from another taken by the same process (or a reused id).
  const content = `${[process.pid, await startTime('self')].filter((part) => part !== undefined).join(' ')} ${randomUUID()}\n`;
  const mine = join(dir, `${LOCK}.${randomUUID()}.tmp`);
  await writeFile(mine, content);
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      const seen = await generations(dir);
      const newest = seen.at(-1) ?? -1;
      const current = newest < 0 ? undefined : await owner(join(dir, lockName(newest)));
      if (current?.runs) throw new DirectoryInUseError(dir, current.pid);
      const path = join(dir, lockName(newest + 1));
      try {
        await createFrom(mine, path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue; // another starter took this generation
        throw err;
      }
      await refuseIfAnotherRuns(dir, path);
      // Only the dead owners' locks go: read again, as one seen before may have been replaced by a live one since.
      for (const g of seen) {
        const older = join(dir, lockName(g));
        if (!(await owner(older))?.runs) await rm(older, { force: true });
      }
      await removeKilledStartersFiles(dir, mine);
      return async () => {
        if ((await readFile(path, 'utf8').catch(() => undefined)) === content) await rm(path, { force: true });
      };
    }
  } finally {
    await rm(mine, { force: true });
  }
  throw new DirectoryInUseError(dir);
}

/** Creates `path` holding `from`'s bytes, failing with EEXIST if it exists. */
async function createFrom(from: string, path: string): Promise<void> {
  try {
    await link(from, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
    // A file system without hard links: still created exclusively, though its bytes follow, so a
    // starter reading it meanwhile may find it empty and give up or judge it dead; rare, and only then.
    await copyFile(from, path, constants.COPYFILE_EXCL);
  }
}

/**
 * A starter that read the generations before a broker took and released the lock may take a
 * generation beside a newer starter's: each then sees the other's and gives up its own.
 */
async function refuseIfAnotherRuns(dir: string, path: string): Promise<void> {
  for (const g of await generations(dir)) {
    const other = join(dir, lockName(g));
    if (other === path) continue;
    const running = await owner(other);
    if (running?.runs) {
      await rm(path, { force: true });
      throw new DirectoryInUseError(dir, running.pid);
    }
  }
}

/**
 * Removes what starters killed before they cleaned up (a SIGKILL during a start) left: their
 * files naming a process that is gone. A file naming a live process is that starter's, still at
 * work; one not yet whole may be being written now, and is left until it is old. Best effort:
 * the lock is taken by now, and a file that cannot be judged is left for a later start.
 */
async function removeKilledStartersFiles(dir: string, mine: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [])) {
    const path = join(dir, name);
    if (!STARTER_FILE.test(name) || path === mine) continue;
    try {
      const text = await readIfThere(path);
      if (text === undefined) continue;
      const killed = text.endsWith('\n') ? !(await ownerIn(text)).runs : Date.now() - (await stat(path)).mtimeMs > HALF_WRITTEN_MS;
      if (killed) await rm(path, { force: true });
    } catch {
      // gone meanwhile, or not ours to read: left as it is
    }
  }
}
