/**
 * `npm run bench`: brook side by side with references measured in the same run, as one table.
 * Every figure is a ratio or a cost against its reference; absolute rates are shown for context.
 * `--smoke` runs each scenario briefly (CI), with no expectations on the numbers.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { coreBench } from './core.js';

const smoke = process.argv.includes('--smoke');
const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const LOAD = join(tmpdir(), 'brook-produce-load');

interface LoadResult {
  messages: number;
  seconds: number;
  errors: number;
  p50_us: number;
  p99_us: number;
}

function buildLoadGenerator(): void {
  execFileSync('gcc', ['-O2', '-o', LOAD, join(BENCH_DIR, 'produce-load.c'), '-lrdkafka'], { stdio: 'inherit' });
}

function runLoad(target: string, topic: string, messages: number, batch: number, rate = 0): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(LOAD, [target, topic, '4', String(messages), '100', String(batch), String(rate)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`produce-load ${target} failed (${code}): ${err}`));
      else resolve(JSON.parse(line) as LoadResult);
    });
  });
}

/** CPU seconds (user + system) the process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Row {
  scenario: string;
  brook: string;
  reference: string;
  ratio: string;
}

const rows: Row[] = [];
const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function produceThroughput(serve: ServeProcess): Promise<void> {
  const rounds = smoke ? 1 : 3;
  for (const batch of [10, 100, 1000]) {
    const messages = smoke ? 5_000 : batch === 10 ? 100_000 : 400_000;
    let brookBest = 0;
    let mockBest = 0;
    let cpuPerBatchUs = Infinity;
    for (let round = 0; round < rounds; round++) {
      // Alternate so that both see the same machine weather.
      const cpuBefore = cpuSeconds(serve.child.pid!);
      const b = await runLoad(serve.bootstrap, `tp-${batch}-${round}`, messages, batch);
      const cpu = cpuSeconds(serve.child.pid!) - cpuBefore;
      const m = await runLoad('mock', `tp-${batch}-${round}`, messages, batch);
      brookBest = Math.max(brookBest, b.messages / b.seconds);
      mockBest = Math.max(mockBest, m.messages / m.seconds);
      cpuPerBatchUs = Math.min(cpuPerBatchUs, (cpu * 1e6) / (messages / batch));
    }
    rows.push({
      scenario: `produce idempotent acks=all, ${batch}-msg batches (msgs/s)`,
      brook: fmt(brookBest),
      reference: `${fmt(mockBest)} (librdkafka mock)`,
      ratio: (brookBest / mockBest).toFixed(2),
    });
    rows.push({
      scenario: `  same: MB/s of 100-byte values`,
      brook: fmt((brookBest * 100) / 1e6, 1),
      reference: fmt((mockBest * 100) / 1e6, 1),
      ratio: (brookBest / mockBest).toFixed(2),
    });
    rows.push({ scenario: `  brook CPU per ${batch}-msg batch (µs)`, brook: fmt(cpuPerBatchUs, 1), reference: '', ratio: '' });
  }
}

async function produceLatency(serve: ServeProcess): Promise<void> {
  const messages = smoke ? 500 : 20_000;
  const rate = 2_000;
  const b = await runLoad(serve.bootstrap, 'latency', messages, 100, rate);
  const m = await runLoad('mock', 'latency', messages, 100, rate);
  rows.push({ scenario: `produce latency p50 at ${rate} msgs/s (µs)`, brook: fmt(b.p50_us), reference: `${fmt(m.p50_us)} (mock)`, ratio: (b.p50_us / m.p50_us).toFixed(2) });
  rows.push({ scenario: `produce latency p99 at ${rate} msgs/s (µs)`, brook: fmt(b.p99_us), reference: `${fmt(m.p99_us)} (mock)`, ratio: (b.p99_us / m.p99_us).toFixed(2) });
}

async function main(): Promise<void> {
  buildLoadGenerator();
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-bench-'));
  const serve = await startServe(['--log-level', 'warn', '--partitions', '4'], dataDir);
  try {
    await produceThroughput(serve);
    await produceLatency(serve);
  } finally {
    await serve.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  rows.push(...(await coreBench(smoke)));
  const widths = (['scenario', 'brook', 'reference', 'ratio'] as const).map((k) => Math.max(k.length, ...rows.map((r) => r[k].length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(['scenario', 'brook', 'reference', 'ratio']));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line([r.scenario, r.brook, r.reference, r.ratio]));
}

await main();
