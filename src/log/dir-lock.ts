/**
 * One broker per data directory: a `.lock` file holding the owner's process id and, where /proc
 * tells it, the owner's start time, created exclusively. A lock whose process is gone (a kill -9)
 * is taken over. The start time tells a reused process id apart: in a container the broker
 * restarted after a kill -9 often gets the dead one's id back (often 1).
 */
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

export class DirectoryInUseError extends Error {}

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

/** Takes the directory's lock; resolves to its release. */
export async function lockDirectory(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, '.lock');
  const self = [process.pid, await startTime('self')].filter((part) => part !== undefined).join(' ');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(`${self}\n`);
      await handle.close();
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const [id, started] = (await readFile(path, 'utf8').catch(() => '')).trim().split(' ');
      const owner = Number(id);
      if (Number.isInteger(owner) && owner > 0 && (await ownerRuns(owner, started))) {
        throw new DirectoryInUseError(`data directory ${dir} is in use by process ${owner}`);
      }
      await rm(path, { force: true });
    }
  }
  throw new DirectoryInUseError(`data directory ${dir} is being locked by another process`);
}
