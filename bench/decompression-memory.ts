/**
 * What compression bombs on many connections at once cost in memory: brook's RSS at its peak while
 * 32 connections each send a Produce request whose lz4 or zstd batch decompresses to ~47 MiB, and
 * 20 s after, beside its idle RSS plus the memory for work in flight (queued.max.request.bytes),
 * which the checks thread's decompressions are charged to. Its own broker, so that nothing else is
 * counted.
 */
import { readFileSync } from 'node:fs';
import { ProduceRequest } from '../src/protocol/messages/produce.js';
import { codecs, sealBatch } from '../test/helpers/compressed-batch.js';
import { startServe } from '../test/helpers/serve-process.js';
import { WireClient } from '../test/helpers/wire-client.js';
import { createTopic, produceRequest } from '../test/helpers/wire-produce.js';
import { compared, type Row } from './table.js';

const MIB = 1 << 20;
/** Room for the bombs' records; the budget keeps 2.5 times that (120 MiB) for decompressing them. */
const REQUEST_BYTES = 48 * MIB;
const BUDGET_BYTES = 168 * MIB;

/** The process's resident memory now, in MiB. */
function rssMib(pid: number): number {
  const kib = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return Number(kib) / 1024;
}

export async function decompressionMemoryBench(smoke: boolean): Promise<Row[]> {
  const connections = smoke ? 4 : 32;
  const inflated = smoke ? 4 * MIB : 47 * MIB;
  const settle = smoke ? 1000 : 20_000;
  const serve = await startServe(['--log-level', 'warn', '--max-request-bytes', String(REQUEST_BYTES), '--queued-max-request-bytes', String(BUDGET_BYTES)]);
  const pid = serve.child.pid!;
  const rows: Row[] = [];
  try {
    const admin = await WireClient.connect(serve.port);
    await createTopic(admin, 'bombed', 1);
    admin.close();
    const idle = rssMib(pid);
    const bound = idle + BUDGET_BYTES / MIB;
    for (const codec of codecs.filter((c) => c.name === 'lz4' || c.name === 'zstd')) {
      const bomb = sealBatch(codec.id, codec.compress(Buffer.alloc(inflated)), 1);
      const bombers = await Promise.all(Array.from({ length: connections }, () => WireClient.connect(serve.port)));
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMib(pid))), 10);
      await Promise.all(
        bombers.map(async (on) => {
          on.sendRaw(on.frame(ProduceRequest, 9, produceRequest('bombed', 0, bomb)));
          if ((await on.nextFrame(120_000)) === undefined) throw new Error('the broker closed a bombing connection');
        }),
      );
      clearInterval(sampler);
      for (const on of bombers) on.close();
      await new Promise((resolve) => setTimeout(resolve, settle));
      const scenario = `${connections} connections each sending ${codec.name} inflating to ${inflated / MIB} MiB`;
      rows.push(compared(`brook RSS, ${scenario}, peak (MiB)`, peak, bound, `idle ${Math.round(idle)} + budget ${BUDGET_BYTES / MIB}`));
      rows.push(compared(`brook RSS ${settle / 1000} s after ${scenario} (MiB)`, rssMib(pid), idle, 'idle'));
    }
    return rows;
  } finally {
    await serve.stop();
  }
}
