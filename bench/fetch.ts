/** Fetch throughput to a librdkafka consumer: brook against librdkafka's mock cluster. */
import type { ServeProcess } from '../test/helpers/serve-process.js';
import { consumeLoad, produceLoad, type ConsumeResult } from './kafka-load.js';
import { alternating, cpuSeconds, highest, lowest } from './measure.js';
import { compared, type Row } from './table.js';

export async function fetchThroughput(serve: ServeProcess, smoke: boolean): Promise<Row[]> {
  // The topic is read `passes` times, not made larger: the mock keeps only ~5 MB per partition.
  const load = { messages: smoke ? 2_000 : 160_000, batch: 1000, passes: smoke ? 1 : 20 };
  await produceLoad(serve.bootstrap, 'fetch', load);
  interface Round {
    rate: number;
    /** The broker's CPU, in ms, per MB of values it sent. */
    cpuPerMb: number;
  }
  const round = (r: ConsumeResult, brokerCpuS: number): Round => ({ rate: r.messages / r.seconds, cpuPerMb: (brokerCpuS * 1e3) / (r.bytes / 1e6) });
  let bytesPerMessage = 0;
  const [brook, mock] = (await alternating(smoke ? 1 : 3, [
    async () => {
      const cpuBefore = cpuSeconds(serve.child.pid!);
      const r = await consumeLoad(serve.bootstrap, 'fetch', load);
      bytesPerMessage = r.bytes / r.messages;
      return round(r, cpuSeconds(serve.child.pid!) - cpuBefore);
    },
    async () => {
      const r = await consumeLoad('mock', 'fetch', load);
      return round(r, r.mock_cpu_s);
    },
  ])) as [Round[], Round[]];
  const rate = (rounds: readonly Round[]): number => highest(rounds.map((r) => r.rate));
  const cpu = (rounds: readonly Round[]): number => lowest(rounds.map((r) => r.cpuPerMb));
  return [
    compared('fetch to a librdkafka consumer (msgs/s)', rate(brook), rate(mock), 'librdkafka mock'),
    compared(`  same: MB/s of ${bytesPerMessage}-byte values`, (rate(brook) * bytesPerMessage) / 1e6, (rate(mock) * bytesPerMessage) / 1e6, '', 1),
    compared('  broker CPU per MB of values fetched (ms)', cpu(brook), cpu(mock), "the mock cluster's thread", 2),
  ];
}
