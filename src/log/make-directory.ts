/** `mkdir -p` that always returns. */
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Makes `path` and any missing parents. Node's `mkdir(path, { recursive: true })` never settles
 * where the system answers ENOENT although the parent exists (under /proc, say), so the parents
 * are made one call at a time and a second ENOENT is an error.
 */
export async function makeDirectory(path: string): Promise<void> {
  try {
    await mkdir(path);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && (await stat(path)).isDirectory()) return;
    if (code !== 'ENOENT' || dirname(path) === path) throw err;
  }
  await makeDirectory(dirname(path));
  try {
    await mkdir(path);
  } catch (err) {
    // Made meanwhile by someone else: as good as made here.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(path)).isDirectory()) throw err;
  }
}
