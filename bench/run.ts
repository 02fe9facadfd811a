/**
 * `npm run bench`: brook side by side with references measured in the same run, as one table.
 * The machine is shared and noisy, so every figure is a ratio or a cost against its reference;
 * absolute rates are shown for context. `--smoke` runs every scenario briefly with tiny sizes
 * (CI, `npm run bench:smoke`) and expects nothing of the numbers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../test/helpers/serve-process.js';
import { authorizerBench } from './authorizer.js';
import { closedConnectionsBench } from './closed-connections.js';
import { fetchThroughput } from './fetch.js';
import { flushAlways } from './flush.js';
import { compactionBench } from './compaction.js';
import { decompressionBench } from './decompression.js';
import { decompressionMemoryBench } from './decompression-memory.js';
import { buildKafkaLoad, PARTITIONS } from './kafka-load.js';
import { memoryBench } from './memory.js';
import { offsetCommitBench } from './offsets.js';
import { partitionMemoryBench } from './partition-memory.js';
import { produceLatency, produceThroughput, produceTransactional } from './produce.js';
import { recoveryBench } from './recovery.js';
import { replayBench } from './replay.js';
import { rollLatencyBench } from './roll-latency.js';
import { rulesBench } from './rules.js';
import { printTable, type Row } from './table.js';

const smoke = process.argv.includes('--smoke');
/** `--only produce`: the scenarios whose name has this word, and no others. */
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1];
const runs = (name: string): boolean => only === undefined || name.includes(only);

async function main(): Promise<void> {
  buildKafkaLoad();
  const rows: Row[] = [];
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-bench-'));
  const serve = await startServe(['--log-level', 'warn', '--partitions', String(PARTITIONS)], dataDir);
  try {
    if (runs('produce')) rows.push(...(await produceThroughput(smoke)));
    if (runs('produce transactional')) rows.push(...(await produceTransactional(smoke)));
    if (runs('produce latency')) rows.push(...(await produceLatency(serve, smoke)));
    if (runs('fetch')) rows.push(...(await fetchThroughput(serve, smoke)));
    if (runs('flush')) rows.push(...(await flushAlways(serve, smoke)));
    if (runs('decompression')) rows.push(...(await decompressionBench(serve, smoke)));
  } finally {
    await serve.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  if (runs('compaction')) rows.push(...(await compactionBench(smoke)));
  if (runs('authorizer')) rows.push(...(await authorizerBench(smoke)));
  if (runs('decompression memory')) rows.push(...(await decompressionMemoryBench(smoke)));
  if (runs('closed connections')) rows.push(...(await closedConnectionsBench(smoke)));
  if (runs('offset commit')) rows.push(...(await offsetCommitBench(smoke)));
  if (runs('recovery')) rows.push(...(await recoveryBench(smoke)));
  if (runs('roll latency')) rows.push(...(await rollLatencyBench(smoke)));
  if (runs('memory')) rows.push(...memoryBench(smoke));
  if (runs('partition memory')) rows.push(...(await partitionMemoryBench(smoke)));
  if (runs('rules')) rows.push(...(await rulesBench(smoke)));
  if (runs('replay')) rows.push(...(await replayBench(smoke)));
  printTable(rows);
}

await main();
