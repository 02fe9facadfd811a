/**
 * `npm run bench`: brook side by side with references measured in the same run, as one table.
 * The machine is shared and noisy, so every figure is a ratio or a cost against its reference;
 * absolute rates are shown for context. `--smoke` runs every scenario briefly with tiny sizes
 * (CI, `npm run bench:smoke`) and expects nothing of the numbers. `--only <text>` runs the
 * scenarios whose name holds `<text>` (`npm run bench -- --only cleaner-small`), to measure one
 * change without the whole table.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { authorizerBench } from './authorizer.js';
import { closedConnectionsBench } from './closed-connections.js';
import { codecAllocatorBench } from './codec-allocator.js';
import { fetchThroughput } from './fetch.js';
import { flushAlways } from './flush.js';
import { compactionScenarios } from './compaction.js';
import { decompressionBench } from './decompression.js';
import { decompressionMemoryBench } from './decompression-memory.js';
import { buildKafkaLoad, PARTITIONS } from './kafka-load.js';
import { memoryBench } from './memory.js';
import { nodesBench } from './nodes.js';
import { offsetCommitBench } from './offsets.js';
import { transactionStateBench } from './transaction-state.js';
import { consumerGroupBench } from './consumer-groups.js';
import { partitionMemoryBench } from './partition-memory.js';
import { produceLatency, produceThroughput, produceTransactional } from './produce.js';
import { recoveryBench } from './recovery.js';
import { replayBench } from './replay.js';
import { rollLatencyBench } from './roll-latency.js';
import { rulesBench } from './rules.js';
import { printTable, type Row } from './table.js';

const smoke = process.argv.includes('--smoke');
/** `--only produce`: the scenarios whose name holds this text, and no others. */
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt < 0 ? undefined : process.argv[onlyAt + 1];

/** The scenarios that run on the shared broker, then those that start their own, by name. */
type Scenario = readonly [name: string, run: () => Promise<Row[]> | Row[]];

function wanted(scenarios: readonly Scenario[]): Scenario[] {
  return scenarios.filter(([name]) => only === undefined || name.includes(only));
}

async function main(): Promise<void> {
  buildKafkaLoad();
  const rows: Row[] = [];
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-bench-'));
  let serve: ServeProcess | undefined;
  const shared = wanted([
    ['produce', () => produceThroughput(smoke)],
    ['produce-transactional', () => produceTransactional(smoke)],
    ['produce-latency', () => produceLatency(serve!, smoke)],
    ['fetch', () => fetchThroughput(serve!, smoke)],
    ['flush', () => flushAlways(serve!, smoke)],
    ['decompression', () => decompressionBench(serve!, smoke)],
  ]);
  try {
    if (shared.length > 0) serve = await startServe(['--log-level', 'warn', '--partitions', String(PARTITIONS)], dataDir);
    for (const [, run] of shared) rows.push(...(await run()));
  } finally {
    await serve?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  const own = wanted([
    ...compactionScenarios(smoke),
    ['authorizer', () => authorizerBench(smoke)],
    ['decompression-memory', () => decompressionMemoryBench(smoke)],
    ['codec-allocator', () => codecAllocatorBench(smoke)],
    ['closed-connections', () => closedConnectionsBench(smoke)],
    ['offset-commit', () => offsetCommitBench(smoke)],
    ['transaction-state', () => transactionStateBench(smoke)],
    ['consumer-groups', () => consumerGroupBench(smoke)],
    ['recovery', () => recoveryBench(smoke)],
    ['roll-latency', () => rollLatencyBench(smoke)],
    ['memory', () => memoryBench(smoke)],
    ['nodes', () => nodesBench(smoke)],
    ['partition-memory', () => partitionMemoryBench(smoke)],
    ['rules', () => rulesBench(smoke)],
    ['replay', () => replayBench(smoke)],
  ]);
  for (const [, run] of own) rows.push(...(await run()));
  printTable(rows);
}

await main();
