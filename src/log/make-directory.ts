/** `mkdir -p` that always returns. */
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Makes `path` and any missing parents. Node's `mkdir(path, { recursive: true })` never settles
 * where the system answers ENOENT although the parent exists (under /proc, say), so the parents
 * are made one call at a time and a second ENOENT is an error.
 */
export function makeDirectory(path: string): Promise<void> {
  return make(path, false);
}

async function make(path: string, parentMade: boolean): Promise<void> {
  try {
    await mkdir(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // There already, or made meanwhile by someone else: as good as made here.
    if (code === 'EEXIST' && (await stat(path)).isDirectory()) return;
    if (code !== 'ENOENT' || parentMade || dirname(path) === path) throw err;
    await make(dirname(path), false);
    await make(path, true);
  }
}
