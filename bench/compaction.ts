/**
 * The log cleaner. Its rate: log bytes of a compacted partition cleaned per second (offset map,
 * rewrite, fsync and swap), on 20 segments of 64 MB and on thousands of small ones, each against
 * copying the same segment files one after another into one file, fsynced: the disk's sequential
 * speed, the I/O of a cleaning without its judging. What it costs others:
 * produce latency at a paced rate to a broker whose cleaner works on another topic meanwhile,
 * against the same broker and load with the cleaner off.
 */
import { cp, mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Storage } from '../src/log/storage.js';
import { DEFAULT_CONFIG } from '../src/settings/settings.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { buildBatch } from '../test/helpers/batch.js';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { WireClient } from '../test/helpers/wire-client.js';
import { createTopic, produceBatch } from '../test/helpers/wire-produce.js';
import { PARTITIONS, produceLoad, type ProduceResult } from './kafka-load.js';
import { alternating, highest, lowest } from './measure.js';
import { compared, type Row } from './table.js';

const TOPIC = 'table';
const COMPACTED = { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '0.01' };
const CHUNK = 1024 * 1024;

/** A batch of 100 keyed records of 100-byte values, keys drawn from `keys`. */
function keyedBatch(keys: number, serial: number): Buffer {
  return buildBatch(
    Array.from({ length: 100 }, (_, i) => ({
      key: Buffer.from(`key-${(serial * 7919 + i * 104729) % keys}`),
      value: Buffer.alloc(100, (serial % 26) + 97),
    })),
  );
}

/**
 * Like librdkafka's test 0077 (compaction, gzip round): records of 500-byte values over 3 keys,
 * 10 or 11 to a batch of ~5.4 KB, so that with segment.bytes 10000 each batch is a segment of its own.
 */
function smallSegmentBatch(serial: number): Buffer {
  return buildBatch(
    Array.from({ length: serial % 3 === 0 ? 11 : 10 }, (_, i) => ({ key: Buffer.from(`k${(serial + i) % 3}`), value: Buffer.alloc(500, 97 + (serial % 26)) })),
  );
}

/** A data directory holding one compacted partition of `batches` batches, the `i`th made by `makeBatch(i)`. */
async function filledDirectory(batches: number, makeBatch: (serial: number) => Buffer, segmentBytes: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'brook-bench-clean-'));
  const storage = await Storage.open(dir, { topicDefaults: { ...DEFAULT_CONFIG, segmentBytes } });
  await storage.createTopic(TOPIC, 1, COMPACTED);
  const log = storage.partition(TOPIC, 0)!;
  for (let i = 0; i < batches; i++) {
    const batch = makeBatch(i);
    log.append(batch, readBatchHeader(batch), Date.now());
    if (i % 100 === 99) await log.whenWritten(log.logEndOffset - 1);
  }
  await storage.close();
  return dir;
}

/** Seconds to clean a copy of `source`, and the log bytes cleaned. */
async function cleanCopy(source: string): Promise<{ seconds: number; bytes: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'brook-bench-clean-'));
  try {
    await cp(source, dir, { recursive: true });
    const storage = await Storage.open(dir, { cleaner: { dedupeBufferBytes: 128 * 1024 * 1024, backoffMs: 3_600_000 } });
    const started = process.hrtime.bigint();
    const done = await storage.cleaner!.cleanOnce(Date.now());
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await storage.close();
    if (done === undefined) throw new Error('the bench log was not cleaned');
    return { seconds, bytes: done.bytesCleaned };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Seconds to copy the partition's segments (but the last, which cleaning leaves) one after another into one file, in large reads and writes, fsynced: the disk's speed. */
async function copySegments(source: string): Promise<number> {
  const partition = join(source, `${TOPIC}-0`);
  const logs = (await readdir(partition)).filter((n) => n.endsWith('.log')).sort();
  const target = await mkdtemp(join(tmpdir(), 'brook-bench-copy-'));
  const started = process.hrtime.bigint();
  try {
    const to = await open(join(target, 'copy'), 'w');
    const chunk = Buffer.alloc(CHUNK);
    let at = 0;
    for (const name of logs.slice(0, -1)) {
      const from = await open(join(partition, name), 'r');
      for (let pos = 0; ;) {
        const { bytesRead } = await from.read(chunk, 0, CHUNK, pos);
        if (bytesRead === 0) break;
        await to.write(chunk, 0, bytesRead, at);
        pos += bytesRead;
        at += bytesRead;
      }
      await from.close();
    }
    await to.datasync();
    await to.close();
    return Number(process.hrtime.bigint() - started) / 1e9;
  } finally {
    await rm(target, { recursive: true, force: true });
  }
}

/** The cleaner's rate on `source`'s partition, beside copying its segments. */
async function cleaningRate(what: string, source: string, rounds: number): Promise<Row> {
  try {
    const [cleaned, copied] = await alternating(rounds, [() => cleanCopy(source), async () => ({ seconds: await copySegments(source), bytes: 0 })]);
    // Both measured against the bytes the cleaner cleaned: every segment but the active one.
    const mb = ({ seconds }: { seconds: number }): number => cleaned![0]!.bytes / 1e6 / seconds;
    return compared(what, highest(cleaned!.map(mb)), highest(copied!.map(mb)), 'copying the segments into one file, fsynced', 1);
  } finally {
    await rm(source, { recursive: true, force: true });
  }
}

/** 3,870 segments of ~5.4 KB, like librdkafka's test 0077's partition. */
async function smallSegmentsRate(smoke: boolean): Promise<Row[]> {
  const small = await filledDirectory(smoke ? 40 : 3_870, smallSegmentBatch, 10_000);
  return [await cleaningRate('log cleaner on 3,870 segments of ~5.4 KB (MB/s)', small, smoke ? 1 : 3)];
}

/** 20 segments of 64 MB (the smoke run: 5 of 64 KB) of keyed batches over 100,000 keys. */
async function largeSegmentsRate(smoke: boolean): Promise<Row[]> {
  const keys = smoke ? 500 : 100_000;
  const segmentBytes = smoke ? 64 * 1024 : 64 * 1024 * 1024;
  const segments = smoke ? 5 : 20;
  const batches = Math.ceil((segments * segmentBytes) / keyedBatch(keys, 0).length) + 1;
  const large = await filledDirectory(batches, (i) => keyedBatch(keys, i), segmentBytes);
  return [await cleaningRate('log cleaner on 20 segments of 64 MB (MB/s)', large, smoke ? 1 : 3)];
}

/** A broker with a compacted topic that keyed batches keep dirtying, for one latency round. */
async function latencyRound(cleaner: boolean, round: number, smoke: boolean): Promise<ProduceResult> {
  const serve: ServeProcess = await startServe([
    '--log-level',
    'warn',
    '--partitions',
    String(PARTITIONS),
    ...(cleaner ? ['--cleaner-backoff-ms', '10'] : ['--no-cleaner-enable']),
  ]);
  const client = await WireClient.connect(serve.port);
  try {
    await createTopic(client, TOPIC, 1, { ...COMPACTED, 'segment.bytes': String(1024 * 1024) });
    const keys = smoke ? 500 : 50_000;
    for (let i = 0; i < (smoke ? 20 : 1500); i++) await produceBatch(client, TOPIC, 0, keyedBatch(keys, i));
    // Keyed batches go on arriving while latency is measured, rolling a segment every second or so.
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        await produceBatch(client, TOPIC, 0, keyedBatch(keys, i));
        await sleep(20);
      }
    })();
    const result = await produceLoad(serve.bootstrap, `latency-${round}`, { messages: smoke ? 500 : 10_000, batch: 100, rate: 2_000 });
    writing = false;
    await writer;
    return result;
  } finally {
    client.close();
    await serve.stop();
    await rm(serve.dataDir, { recursive: true, force: true });
  }
}

async function latencyWhileCleaning(smoke: boolean): Promise<Row[]> {
  const [withCleaner, without] = await alternating(smoke ? 1 : 3, [(r) => latencyRound(true, r, smoke), (r) => latencyRound(false, r, smoke)]);
  const p = (results: readonly ProduceResult[], key: 'p50_us' | 'p99_us'): number => lowest(results.map((r) => r[key]));
  return [
    compared('produce latency p50 at 2000 msgs/s, cleaner at work (µs)', p(withCleaner!, 'p50_us'), p(without!, 'p50_us'), 'the same, cleaner off'),
    compared('produce latency p99 at 2000 msgs/s, cleaner at work (µs)', p(withCleaner!, 'p99_us'), p(without!, 'p99_us'), 'the same, cleaner off'),
  ];
}

/** The cleaner's scenarios, by name for `--only`. */
export function compactionScenarios(smoke: boolean): [string, () => Promise<Row[]>][] {
  return [
    ['cleaner-large', () => largeSegmentsRate(smoke)],
    ['cleaner-small', () => smallSegmentsRate(smoke)],
    ['cleaner-latency', () => latencyWhileCleaning(smoke)],
  ];
}
