/** Produce throughput, broker CPU per batch and latency: brook against librdkafka's mock cluster. */
import { readFileSync } from 'node:fs';
import type { ServeProcess } from '../test/helpers/serve-process.js';
import { MSG_BYTES, produceLoad, type ProduceResult } from './kafka-load.js';
import { alternating, highest, lowest } from './measure.js';
import { compared, fmt, type Row } from './table.js';

/** CPU seconds (user + system) the process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function produceThroughput(serve: ServeProcess, smoke: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  for (const batch of [10, 100, 1000]) {
    const messages = smoke ? 5_000 : batch === 10 ? 100_000 : 400_000;
    let cpuPerBatchUs = Infinity;
    // One untimed round first: brook's JIT compiles its produce path for this batch size.
    if (!smoke) await produceLoad(serve.bootstrap, `tp-${batch}-warm`, { messages, batch });
    const [brook, mock] = (await alternating(smoke ? 1 : 5, [
      async (round) => {
        const cpuBefore = cpuSeconds(serve.child.pid!);
        const r = await produceLoad(serve.bootstrap, `tp-${batch}-${round}`, { messages, batch });
        // The least CPU over the rounds: what a batch costs when the machine disturbs least.
        cpuPerBatchUs = Math.min(cpuPerBatchUs, ((cpuSeconds(serve.child.pid!) - cpuBefore) * 1e6) / (messages / batch));
        return r.messages / r.seconds;
      },
      async (round) => {
        const r = await produceLoad('mock', `tp-${batch}-${round}`, { messages, batch });
        return r.messages / r.seconds;
      },
    ])).map(highest);
    rows.push(compared(`produce idempotent acks=all, ${batch}-msg batches (msgs/s)`, brook!, mock!, 'librdkafka mock'));
    rows.push(compared(`  same: MB/s of ${MSG_BYTES}-byte values`, (brook! * MSG_BYTES) / 1e6, (mock! * MSG_BYTES) / 1e6, '', 1));
    rows.push({ scenario: `  brook CPU per ${batch}-msg batch (µs)`, brook: fmt(cpuPerBatchUs, 1), reference: '', ratio: '' });
  }
  return rows;
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
