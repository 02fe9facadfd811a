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

async function main(): Promise<void> {
  buildKafkaLoad();
  const rows: Row[] = [];
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-bench-'));
  const serve = await startServe(['--log-level', 'warn', '--partitions', String(PARTITIONS)], dataDir);
  try {
    rows.push(...(await produceThroughput(smoke)));
    rows.push(...(await produceTransactional(smoke)));
    rows.push(...(await produceLatency(serve, smoke)));
    rows.push(...(await fetchThroughput(serve, smoke)));
    rows.push(...(await flushAlways(serve, smoke)));
    rows.push(...(await decompressionBench(serve, smoke)));
  } finally {
    await serve.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  rows.push(...(await compactionBench(smoke)));
  rows.push(...(await authorizerBench(smoke)));
  rows.push(...(await decompressionMemoryBench(smoke)));
  rows.push(...(await closedConnectionsBench(smoke)));
  rows.push(...(await offsetCommitBench(smoke)));
  rows.push(...(await recoveryBench(smoke)));
  rows.push(...(await rollLatencyBench(smoke)));
  rows.push(...memoryBench(smoke));
  rows.push(...(await partitionMemoryBench(smoke)));
  rows.push(...(await rulesBench(smoke)));
  rows.push(...(await replayBench(smoke)));
  printTable(rows);
}

await main();
