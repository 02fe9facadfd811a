/**
 * One broker per data directory: a `.lock` file holding the owner's process id, created
 * exclusively. A lock whose process is gone (a kill -9) is taken over.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

export class DirectoryInUseError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the directory's lock; resolves to its release. */
export async function lockDirectory(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, '.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
        throw new DirectoryInUseError(`data directory ${dir} is in use by process ${owner}`);
      }
      await rm(path, { force: true });
    }
  }
  throw new DirectoryInUseError(`data directory ${dir} is being locked by another process`);
}
