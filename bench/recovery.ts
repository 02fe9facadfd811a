/**
 * Start-up time of `brook serve`, from process start to its `brook listening on` line: with a
 * large log after a clean stop and after a SIGKILL, against an empty data directory.
 */
import { cp, mkdtemp, open, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { PARTITIONS, produceLoad } from './kafka-load.js';
import { compared, fmt, type Row } from './table.js';

// info: recovery reports what it checked in its log lines.
const SERVE_ARGS = ['--log-level', 'info', '--partitions', String(PARTITIONS)];

async function timedStart(dataDir: string): Promise<{ ms: number; serve: ServeProcess }> {
  const start = performance.now();
  const serve = await startServe(SERVE_ARGS, dataDir);
  return { ms: performance.now() - start, serve };
}

/** Log bytes recovery checked batch by batch, from the broker's 'recovered partition log' lines. */
function scannedBytes(output: string): number {
  let total = 0;
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; scannedBytes?: number };
    if (entry.msg === 'recovered partition log') total += entry.scannedBytes ?? 0;
  }
  return total;
}

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await files(path)));
    else out.push(path);
  }
  return out;
}

/**
 * fsyncs every file under `dir`, so that the kernel's write-back of a copied gigabyte does not
 * compete with the start-up being timed: the log is in the page cache, and clean there.
 */
async function syncTree(dir: string): Promise<void> {
  for (const path of await files(dir)) {
    const handle = await open(path, 'r');
    await handle.sync();
    await handle.close();
  }
}

function size(bytes: number): string {
  return bytes >= 1e9 ? `${fmt(bytes / 1e9, 2)} GB` : `${fmt(bytes / 1e6, 1)} MB`;
}

export async function recoveryBench(smoke: boolean): Promise<Row[]> {
  const root = await mkdtemp(join(tmpdir(), 'brook-bench-recovery-'));
  const crashed = join(root, 'crashed');
  const dataDir = join(root, 'data');
  try {
    // 1000-message batches of 1000-byte values: the quickest way to a large log.
    const filler = await startServe(['--log-level', 'warn', '--partitions', String(PARTITIONS)], crashed);
    await produceLoad(filler.bootstrap, 'recovery', { messages: smoke ? 4_000 : 1_000_000, batch: 1000, msgBytes: 1000 });
    await filler.stop('SIGKILL');
    await syncTree(crashed);
    let logBytes = 0;
    for (const path of await files(crashed)) if (path.endsWith('.log')) logBytes += (await stat(path)).size;

    let empty = Infinity;
    let killed = Infinity;
    let clean = Infinity;
    let scanned = 0;
    for (let round = 0; round < (smoke ? 1 : 3); round++) {
      const fresh = await timedStart(join(root, `empty-${round}`));
      empty = Math.min(empty, fresh.ms);
      await fresh.serve.stop();
      // Every round starts from the same crash: a copy of the directory the SIGKILL left.
      await rm(dataDir, { recursive: true, force: true });
      await cp(crashed, dataDir, { recursive: true });
      await syncTree(dataDir);
      const afterKill = await timedStart(dataDir);
      killed = Math.min(killed, afterKill.ms);
      scanned = scannedBytes(afterKill.serve.output());
      await afterKill.serve.stop(); // a clean stop, which the next start is timed after
      const afterStop = await timedStart(dataDir);
      clean = Math.min(clean, afterStop.ms);
      await afterStop.serve.stop();
    }
    return [
      compared(`start-up after a clean stop, ${size(logBytes)} of log (ms)`, clean, empty, 'empty data dir'),
      compared(`start-up after SIGKILL, ${size(logBytes)} of log, ${size(scanned)} checked (ms)`, killed, empty, 'empty data dir'),
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
