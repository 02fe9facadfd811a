/**
 * Where `brook serve`'s main thread spends its time under the bench's produce load:
 *
 *     npm run build && node --import tsx bench/profile.ts [batch=100] [messages=400000]
 *
 * A V8 CPU profile of the broker over four rounds after three of warm-up (each round a new topic,
 * as in bench/produce.ts), printed as each function's share of the sampled time, by itself and
 * with what it calls, and as µs per batch. V8 samples JavaScript and the native code it calls on
 * the main thread; the kernel's side of system calls shows under the function that made them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../test/helpers/serve-process.js';
import { buildKafkaLoad, PARTITIONS, produceLoad } from './kafka-load.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const batch = Number(process.argv[2] ?? 100);
const messages = Number(process.argv[3] ?? 400_000);
const ROUNDS = 4;
const SHOWN = 40;

buildKafkaLoad();
const profileDir = await mkdtemp(join(tmpdir(), 'brook-profile-'));
const serve = await startServe(['--log-level', 'warn', '--partitions', String(PARTITIONS)], undefined, undefined, [
  '--cpu-prof',
  '--cpu-prof-interval=200',
  `--cpu-prof-dir=${profileDir}`,
]);
let from: number;
let to: number;
try {
  for (const n of [1, 2, 3]) await produceLoad(serve.bootstrap, `warm-up-${n}`, { messages, batch });
  // V8 stamps samples with the monotonic clock, in µs, as process.hrtime reads it.
  from = Number(process.hrtime.bigint() / 1000n);
  for (let n = 0; n < ROUNDS; n++) await produceLoad(serve.bootstrap, `round-${n}`, { messages, batch });
  to = Number(process.hrtime.bigint() / 1000n);
} finally {
  await serve.stop();
  await rm(serve.dataDir, { recursive: true, force: true });
}
const [file] = readdirSync(profileDir);
const profile = JSON.parse(readFileSync(join(profileDir, file!), 'utf8')) as CpuProfile;
await rm(profileDir, { recursive: true, force: true });

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const name = ({ callFrame: { functionName, url, lineNumber } }: ProfileNode): string =>
  `${functionName || '(anonymous)'} ${url.replace(/^.*\/dist\//, '').replace(/^node:internal\//, 'node:')}:${lineNumber + 1}`;

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i]!;
  // A sample's time is the gap to the next one.
  const spent = profile.timeDeltas[i + 1] ?? 0;
  const leaf = byId.get(profile.samples[i]!)!;
  if (at < from || at > to || leaf.callFrame.functionName === '(idle)') continue;
  total += spent;
  self.set(name(leaf), (self.get(name(leaf)) ?? 0) + spent);
  const seen = new Set<string>();
  for (let id: number | undefined = leaf.id; id !== undefined; id = parentOf.get(id)) {
    const frame = name(byId.get(id)!);
    if (!seen.has(frame)) inclusive.set(frame, (inclusive.get(frame) ?? 0) + spent);
    seen.add(frame);
  }
}
const batches = (ROUNDS * messages) / batch;
console.log(`${(total / batches).toFixed(1)} µs sampled per ${batch}-message batch, over ${batches} batches`);
for (const [title, times] of [
  ['by itself', self],
  ['with what it calls', inclusive],
] as const) {
  console.log(`\n% of sampled time, ${title}; µs per batch`);
  const top = [...times.entries()].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  for (const [frame, spent] of top) console.log(`${((100 * spent) / total).toFixed(1).padStart(5)} ${(spent / batches).toFixed(2).padStart(6)}  ${frame}`);
}
