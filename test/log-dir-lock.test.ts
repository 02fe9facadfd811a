import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { randomUUID } from 'node:crypto';
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DirectoryInUseError, lockDirectory } from '../src/log/dir-lock.js';
import { tempDir } from './helpers/log.js';

/** A process id no process has: above Linux's largest. */
const GONE_PID = 4_194_305;

test('brokers starting together over a stale lock: exactly one takes it, every time, and the stale lock is gone', async (t) => {
  for (let trial = 0; trial < 200; trial++) {
    const dir = await tempDir(t);
    await writeFile(join(dir, '.lock'), `${GONE_PID} 12345\n`);
    const results = await Promise.allSettled([lockDirectory(dir), lockDirectory(dir), lockDirectory(dir)]);
    const taken = results.filter((r) => r.status === 'fulfilled');
    assert.equal(taken.length, 1, `trial ${trial}`);
    for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof DirectoryInUseError, String(r.reason));
    const left = await readdir(dir);
    assert.equal(left.length, 1, `one lock file and nothing beside it: ${left.join(' ')}`);
    assert.match(left[0]!, /^\.lock\.1$/, 'the taken-over lock is the next generation');
  }
});

test('the lock names its owner from the moment it exists, and its release removes only that lock', async (t) => {
  const dir = await tempDir(t);
  const release = await lockDirectory(dir);
  assert.match(await readFile(join(dir, '.lock'), 'utf8'), new RegExp(`^${process.pid} `));
  // Its owner is this process: the message says so rather than give the caller its own id.
  await assert.rejects(lockDirectory(dir), {
    name: 'DirectoryInUseError',
    message: `data directory ${dir} is in use by a broker in this process, not yet closed`,
    pid: process.pid,
  });
  await release();
  assert.deepEqual(await readdir(dir), []);
  const again = await lockDirectory(dir);
  await release(); // the first release again: the lock is another's now
  assert.deepEqual(await readdir(dir), ['.lock']);
  await again();
  assert.deepEqual(await readdir(dir), []);
});

test('a starter that read the locks before another broker came and went, and a third took the lock, gives up and leaves the third its lock', async (t) => {
  // Holds the first link() back, so that the others run in between: the interleaving two processes could have.
  const link = fs.promises.link;
  let resume: (() => void) | undefined;
  let held = false;
  fs.promises.link = async (from, to) => {
    if (!held) {
      held = true;
      await new Promise<void>((r) => (resume = r));
    }
    return link(from, to);
  };
  syncBuiltinESMExports();
  t.after(() => {
    fs.promises.link = link;
    syncBuiltinESMExports();
  });
  const dir = await tempDir(t);
  await writeFile(join(dir, '.lock'), `${GONE_PID} 12345\n`);
  const slow = lockDirectory(dir); // reads the dead lock, then waits before its link
  while (resume === undefined) await new Promise((r) => setTimeout(r, 5));
  const releaseFirst = await lockDirectory(dir);
  await releaseFirst();
  const releaseThird = await lockDirectory(dir);
  const third = await readdir(dir);
  resume();
  await assert.rejects(slow, DirectoryInUseError);
  assert.deepEqual(
    (await readdir(dir)).filter((n) => !n.endsWith('.tmp')),
    third.filter((n) => !n.endsWith('.tmp')),
    "the third's lock is still there",
  );
  await releaseThird();
});

test('on a file system without hard links the lock is still taken exclusively and names its owner', async (t) => {
  const link = fs.promises.link;
  fs.promises.link = async () => {
    throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
  };
  syncBuiltinESMExports();
  t.after(() => {
    fs.promises.link = link;
    syncBuiltinESMExports();
  });
  const dir = await tempDir(t);
  const release = await lockDirectory(dir);
  assert.match(await readFile(join(dir, '.lock'), 'utf8'), new RegExp(`^${process.pid} `));
  await assert.rejects(lockDirectory(dir), DirectoryInUseError);
  await release();
  assert.deepEqual(await readdir(dir), []);
});

test("files of starters killed mid-start are removed by the next start; a live starter's, or one being written, are left to it", async (t) => {
  const dir = await tempDir(t);
  const starterFile = () => `.lock.${randomUUID()}.tmp`;
  const [dead, live, beingWritten, halfWrittenLongAgo] = [starterFile(), starterFile(), starterFile(), starterFile()];
  await writeFile(join(dir, dead), `${GONE_PID} 12345 ${randomUUID()}\n`);
  // A process id without a start time, as where /proc does not tell it: this process, alive.
  await writeFile(join(dir, live), `${process.pid}\n`);
  await writeFile(join(dir, beingWritten), `${GONE_PID} 123`);
  await writeFile(join(dir, halfWrittenLongAgo), '');
  const longAgo = new Date(Date.now() - 3_600_000);
  await utimes(join(dir, halfWrittenLongAgo), longAgo, longAgo);
  const release = await lockDirectory(dir);
  assert.deepEqual((await readdir(dir)).sort(), ['.lock', beingWritten, live].sort());
  await release();
});
