/** Produce throughput, broker CPU per batch and latency: brook against librdkafka's mock cluster. */
import { closeSync, openSync, readdirSync, statSync, writevSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startListening, startServe, type ListeningProcess, type ServeProcess } from '../test/helpers/serve-process.js';
import { MSG_BYTES, PARTITIONS, produceLoad, produceTransactionalLoad, type ProduceResult } from './kafka-load.js';
import { alternating, cpuSeconds, highest, lowest, median } from './measure.js';
import { compared, type Row } from './table.js';

/** One timed produce run: its rate, and the CPU the broker and the producer spent on it. */
interface Round {
  rate: number;
  brokerCpuS: number;
  clientCpuS: number;
}

/**
 * Each scenario gets a broker of its own, so that none inherits the topics and memory of the one
 * before, warmed with three untimed rounds first: its JIT compiles the produce path, and V8
 * sizes its heap for the load. Separate rounds, each a new connection and topic as the timed ones
 * are, so that code the first new connection deoptimizes is compiled again before timing starts.
 */
export async function produceThroughput(smoke: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  for (const batch of [10, 100, 1000]) rows.push(...(await throughputRows(smoke, batch)));
  return rows;
}

/** Rounds per contender: enough that the median round is steady from run to run, as single rounds on this machine are not. */
const THROUGHPUT_ROUNDS = 9;

/** brook's listener, connections, framing, dispatch and codecs answering Produce with nothing checked or stored. */
const FLOOR_SERVER = fileURLToPath(new URL('./produce-floor-server.mjs', import.meta.url));

async function throughputRows(smoke: boolean, batch: number): Promise<Row[]> {
  const messages = smoke ? 5_000 : batch === 10 ? 100_000 : 400_000;
  const load = { messages, batch };
  const round = (r: ProduceResult, brokerCpuS: number): Round => ({ rate: r.messages / r.seconds, brokerCpuS, clientCpuS: r.client_cpu_s });
  const serve = await startServe(['--log-level', 'warn', '--partitions', String(PARTITIONS)]);
  const unstored = await startListening('floor', [process.execPath, FLOOR_SERVER, String(PARTITIONS)]);
  const floorDir = await mkdtemp(join(tmpdir(), 'brook-bench-floor-'));
  let brook: Round[];
  let mock: Round[];
  let floor: number[];
  let path: Round[];
  try {
    if (!smoke) for (const server of [serve, unstored]) for (const n of [1, 2, 3]) await produceLoad(server.bootstrap, `warm-up-${n}`, load);
    // One round against a server process, with the CPU it spent on it.
    const measured = async (server: ListeningProcess, n: number): Promise<Round> => {
      const cpuBefore = cpuSeconds(server.child.pid!);
      const result = await produceLoad(server.bootstrap, `round-${n}`, load);
      return round(result, cpuSeconds(server.child.pid!) - cpuBefore);
    };
    let loggedBytes = 0;
    const rounds = await alternating<Round | number>(smoke ? 1 : THROUGHPUT_ROUNDS, [
      async (n) => {
        const measuredRound = await measured(serve, n);
        loggedBytes = logBytes(serve.dataDir, `round-${n}`);
        return measuredRound;
      },
      // The same bytes brook just logged (its warm-up messages included), appended by this process.
      async (n) => appendSeconds(join(floorDir, `round-${n}.log`), loggedBytes, messages / batch),
      async (n) => {
        const result = await produceLoad('mock', `round-${n}`, load);
        return round(result, result.mock_cpu_s);
      },
      (n) => measured(unstored, n),
    ]);
    [brook, floor, mock, path] = rounds as [Round[], number[], Round[], Round[]];
  } finally {
    await serve.stop();
    await unstored.stop();
    await rm(serve.dataDir, { recursive: true, force: true });
    await rm(floorDir, { recursive: true, force: true });
  }
  const rate = (rounds: readonly Round[]): number => highest(rounds.map((r) => r.rate));
  const perBatchUs = (seconds: number): number => (seconds * 1e6 * batch) / messages;
  // CPU per batch in µs, from the least disturbed round.
  const cpu = (rounds: readonly Round[], key: 'brokerCpuS' | 'clientCpuS'): number => perBatchUs(lowest(rounds.map((r) => r[key])));
  const cpuPerMb = (rounds: readonly Round[]): number => (lowest(rounds.map((r) => r.brokerCpuS)) * 1e3) / ((messages * MSG_BYTES) / 1e6);
  // The typical round beside the least disturbed one.
  const medianRate = (rounds: readonly Round[]): number => median(rounds.map((r) => r.rate));
  const medianCpu = (rounds: readonly Round[]): number => perBatchUs(median(rounds.map((r) => r.brokerCpuS)));
  return [
    compared(`produce idempotent acks=all, ${batch}-msg batches (msgs/s)`, rate(brook), rate(mock), 'librdkafka mock'),
    compared(`  same, median round (msgs/s)`, medianRate(brook), medianRate(mock), 'librdkafka mock'),
    compared(`  same: MB/s of ${MSG_BYTES}-byte values`, (rate(brook) * MSG_BYTES) / 1e6, (rate(mock) * MSG_BYTES) / 1e6, '', 1),
    compared(`  broker CPU per ${batch}-msg batch (µs)`, cpu(brook, 'brokerCpuS'), cpu(mock, 'brokerCpuS'), "the mock cluster's thread", 1),
    compared(`  same, median round (µs)`, medianCpu(brook), medianCpu(mock), "the mock cluster's thread", 1),
    compared(
      `  same CPU, beside one bare write of each batch's bytes (µs)`,
      cpu(brook, 'brokerCpuS'),
      perBatchUs(lowest(floor)),
      'to a new file, same disk',
      1,
    ),
    compared(`  floor: brook's request path alone, CPU per batch (µs)`, cpu(path, 'brokerCpuS'), cpu(mock, 'brokerCpuS'), "the mock cluster's thread", 1),
    compared(`  same, median round (µs)`, medianCpu(path), medianCpu(mock), "the mock cluster's thread", 1),
    compared(`  same path, median round (msgs/s)`, medianRate(path), medianRate(mock), 'librdkafka mock'),
    compared(`  broker CPU per MB of values (ms)`, cpuPerMb(brook), cpuPerMb(mock), "the mock cluster's thread", 2),
    compared(`  producer's own CPU per ${batch}-msg batch (µs)`, cpu(brook, 'clientCpuS'), cpu(mock, 'clientCpuS'), 'the same, producing to the mock', 1),
  ];
}

/** Batches per transaction in the transactional row. */
const BATCHES_PER_TXN = 100;

/**
 * Transactional produce beside the idempotent row at 100-message batches: the same load, committed
 * every 100 batches (the coordinator's calls, a marker per partition per transaction), on a broker
 * of its own warmed as the idempotent scenarios are.
 */
export async function produceTransactional(smoke: boolean): Promise<Row[]> {
  const batch = 100;
  const load = { messages: smoke ? 5_000 : 400_000, batch };
  const serve = await startServe(['--log-level', 'warn', '--partitions', String(PARTITIONS)]);
  let brook: ProduceResult[];
  let mock: ProduceResult[];
  try {
    if (!smoke) for (const n of [1, 2, 3]) await produceTransactionalLoad(serve.bootstrap, `txn-warm-up-${n}`, load, BATCHES_PER_TXN);
    [brook, mock] = (await alternating(smoke ? 1 : 5, [
      (n) => produceTransactionalLoad(serve.bootstrap, `txn-round-${n}`, load, BATCHES_PER_TXN),
      (n) => produceTransactionalLoad('mock', `txn-round-${n}`, load, BATCHES_PER_TXN),
    ])) as [ProduceResult[], ProduceResult[]];
  } finally {
    await serve.stop();
    await rm(serve.dataDir, { recursive: true, force: true });
  }
  const rate = (results: readonly ProduceResult[]): number => highest(results.map((r) => r.messages / r.seconds));
  return [
    compared(`produce transactional acks=all, ${batch}-msg batches, ${BATCHES_PER_TXN} per transaction (msgs/s)`, rate(brook), rate(mock), 'librdkafka mock'),
  ];
}

export async function produceLatency(serve: ServeProcess, smoke: boolean): Promise<Row[]> {
  const load = { messages: smoke ? 500 : 10_000, batch: 100, rate: 2_000 };
  const [brook, mock] = await alternating(smoke ? 1 : 3, [
    (round) => produceLoad(serve.bootstrap, `latency-${round}`, load),
    (round) => produceLoad('mock', `latency-${round}`, load),
  ]);
  // Each percentile from the least disturbed round.
  const p = (results: readonly ProduceResult[], key: 'p50_us' | 'p99_us'): number => lowest(results.map((r) => r[key]));
  return [
    compared(`produce latency p50 at ${load.rate} msgs/s (µs)`, p(brook!, 'p50_us'), p(mock!, 'p50_us'), 'mock'),
    compared(`produce latency p99 at ${load.rate} msgs/s (µs)`, p(brook!, 'p99_us'), p(mock!, 'p99_us'), 'mock'),
  ];
}

/** Bytes in the log files of a topic's partitions (`TOPIC-N` directories). */
function logBytes(dataDir: string, topic: string): number {
  let bytes = 0;
  for (let p = 0; p < PARTITIONS; p++) {
    const dir = join(dataDir, `${topic}-${p}`);
    for (const file of readdirSync(dir)) if (file.endsWith('.log')) bytes += statSync(join(dir, file)).size;
  }
  return bytes;
}

/**
 * CPU seconds this process spends appending `bytes` to a new file in `writes` equal writes: what
 * storing them costs by itself, new page-cache memory included. brook joins the batches a
 * partition gets in one turn into one write, so at small batches it may make fewer calls.
 */
function appendSeconds(path: string, bytes: number, writes: number): number {
  const piece = Buffer.alloc(Math.ceil(bytes / writes), 'x');
  const fd = openSync(path, 'w');
  const before = process.cpuUsage();
  try {
    for (let position = 0; position < bytes; position += piece.length) writevSync(fd, [piece], position);
  } finally {
    closeSync(fd);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}
