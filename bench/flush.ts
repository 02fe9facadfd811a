/**
 * Produce under `--flush always` (an fsync before every acknowledgement) against what the disk
 * itself does: dd writing the same bytes in batch-sized writes with O_DSYNC (a sync per write),
 * and with one fdatasync at the end, on the file system of the data directory.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { PARTITIONS, produceLoad } from './kafka-load.js';
import { alternating, highest } from './measure.js';
import { compared, fmt, type Row } from './table.js';

const BATCH = 100;

/** Bytes of the topic's segment files. */
async function topicLogBytes(dataDir: string, topic: string): Promise<number> {
  let total = 0;
  for (let p = 0; p < PARTITIONS; p++) {
    const dir = join(dataDir, `${topic}-${p}`);
    for (const name of await readdir(dir)) if (name.endsWith('.log')) total += (await stat(join(dir, name))).size;
  }
  return total;
}

/** Bytes per second of `dd` writing `count` blocks of `bs` bytes to `file` with `flag`. */
function dd(file: string, bs: number, count: number, flag: string): number {
  const r = spawnSync('dd', ['if=/dev/zero', `of=${file}`, `bs=${bs}`, `count=${count}`, flag], { env: { ...process.env, LC_ALL: 'C' } });
  const m = /^(\d+) bytes .* copied, ([\d.e+-]+) s/m.exec(r.stderr.toString());
  if (r.status !== 0 || m === null) throw new Error(`dd ${flag} failed: ${r.stderr.toString()}`);
  return Number(m[1]) / Number(m[2]);
}

/** `none` is the main broker (--flush none), the reference for what the fsyncs cost in messages. */
export async function flushAlways(none: ServeProcess, smoke: boolean): Promise<Row[]> {
  const messages = smoke ? 2_000 : 200_000;
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-bench-flush-'));
  // A sibling of the data directory: the same file system, and no stray file in the broker's directory.
  const ddFile = `${dataDir}.dd`;
  const serve = await startServe(['--log-level', 'warn', '--partitions', String(PARTITIONS), '--flush', 'always'], dataDir);
  // dd imitates the round just measured: brook's log bytes, in writes of one batch's size.
  let logBytes = 0;
  let batchBytes = 0;
  let alwaysMsgs = 0;
  try {
    const [always, dsync, fdatasync, noneMsgs] = (
      await alternating(smoke ? 1 : 3, [
        async (round) => {
          const topic = `flush-${round}`;
          const r = await produceLoad(serve.bootstrap, topic, { messages, batch: BATCH });
          logBytes = await topicLogBytes(dataDir, topic);
          batchBytes = Math.round((logBytes / (messages + PARTITIONS)) * BATCH);
          alwaysMsgs = Math.max(alwaysMsgs, r.messages / r.seconds);
          return logBytes / r.seconds;
        },
        async () => dd(ddFile, batchBytes, Math.ceil(logBytes / batchBytes), 'oflag=dsync'),
        async () => dd(ddFile, batchBytes, Math.ceil(logBytes / batchBytes), 'conv=fdatasync'),
        async (round) => {
          const r = await produceLoad(none.bootstrap, `flush-none-${round}`, { messages, batch: BATCH });
          return r.messages / r.seconds;
        },
      ])
    ).map(highest);
    const mb = (n: number): number => n / 1e6;
    return [
      compared(`produce --flush always, ${BATCH}-msg batches (log MB/s)`, mb(always!), mb(dsync!), `dd oflag=dsync, ${fmt(batchBytes)}-byte writes`, 1),
      compared('  same', mb(always!), mb(fdatasync!), 'dd conv=fdatasync, one sync at the end', 1),
      compared('  same (msgs/s)', alwaysMsgs, noneMsgs!, 'brook --flush none'),
    ];
  } finally {
    await serve.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(ddFile, { force: true });
  }
}
