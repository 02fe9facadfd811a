/** kafka-load.c, the librdkafka load generator: compiled once per run, then run as produce or consume. */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('kafka-load.c', import.meta.url));
/** Named after its source's content: checkouts whose load generators differ never run each other's build. */
const BINARY = join(tmpdir(), `brook-kafka-load-${createHash('sha256').update(readFileSync(SOURCE)).digest('hex').slice(0, 16)}`);

/** Partitions of every benchmark topic: brook serve is started with --partitions 4 to match. */
export const PARTITIONS = 4;
/** Message value size unless a scenario says otherwise. */
export const MSG_BYTES = 100;

export interface ProduceResult {
  messages: number;
  seconds: number;
  errors: number;
  /** -1 unless paced. */
  p50_us: number;
  p99_us: number;
  /** CPU time of the producer's own threads while timed. */
  client_cpu_s: number;
  /** CPU time of the mock cluster's thread while timed; 0 against brook. */
  mock_cpu_s: number;
}

export interface ConsumeResult {
  messages: number;
  seconds: number;
  /** Value bytes received. */
  bytes: number;
  /** CPU time of the consumer's own threads over all passes. */
  client_cpu_s: number;
  /** CPU time of the mock cluster's thread over all passes; 0 against brook. */
  mock_cpu_s: number;
}

export interface Load {
  messages: number;
  /** batch.num.messages of the producer (also of the mock's untimed fill before consuming). */
  batch: number;
  msgBytes?: number;
  /** produce: messages per second, paced; 0 (the default) for as fast as possible. */
  rate?: number;
  /** consume: how many times the whole topic is read. */
  passes?: number;
}

/** Built beside it and renamed into place, so that a run building it meanwhile never finds it half-written. */
export function buildKafkaLoad(): void {
  const built = `${BINARY}.${process.pid}`;
  execFileSync('gcc', ['-O2', '-Wall', '-o', built, SOURCE, '-lrdkafka'], { stdio: 'inherit' });
  renameSync(built, BINARY);
}

/** `target` is a bootstrap address or 'mock' (librdkafka's in-memory cluster, in the load process). */
export function produceLoad(target: string, topic: string, load: Load): Promise<ProduceResult> {
  return run<ProduceResult>('produce', target, topic, load, load.rate ?? 0);
}

/** As produceLoad, unpaced, by a transactional producer committing every `batchesPerTxn` batches. */
export function produceTransactionalLoad(target: string, topic: string, load: Load, batchesPerTxn: number): Promise<ProduceResult> {
  return run<ProduceResult>('produce-txn', target, topic, load, batchesPerTxn);
}

/** Reads `topic`, filled beforehand with `load.messages` messages (the mock is filled in the load process). */
export function consumeLoad(target: string, topic: string, load: Load): Promise<ConsumeResult> {
  return run<ConsumeResult>('consume', target, topic, load, load.passes ?? 1);
}

function run<Result>(mode: string, target: string, topic: string, load: Load, last: number): Promise<Result> {
  const args = [mode, target, topic, PARTITIONS, load.messages, load.msgBytes ?? MSG_BYTES, load.batch, last].map(String);
  return new Promise((resolve, reject) => {
    const child = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`kafka-load ${args.join(' ')} failed (${code}): ${err}`));
      else resolve(JSON.parse(line) as Result);
    });
  });
}
