import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { BROOK_BIN } from '../helpers/cli.js';
import { LineProcess } from '../helpers/line-process.js';
import { tempDataDir } from '../helpers/serve-process.js';

test('serve on a terminal that hangs up stops cleanly, releasing its lock, and ends by the hang-up', async (t) => {
  const dataDir = await tempDataDir();
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  // A write to a terminal that is gone fails, and Node's exit resets the terminal: neither may hang or abort the stop.
  const ended = await LineProcess.python<{ signal?: number | null; code?: number | null; locks?: string[]; hung?: boolean }>('hang_up.py', [
    BROOK_BIN,
    dataDir,
    15,
  ]).finish();
  assert.deepEqual(ended, { signal: 1, code: null, locks: [] });
});
