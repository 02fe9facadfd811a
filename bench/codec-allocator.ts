/**
 * What giving the codecs' freed memory back at once costs (src/protocol/codec-allocator.ts): the
 * broker's CPU per lz4 batch whose records decompress to about 1 MiB, checked on Produce's checks
 * thread one after another, beside a broker whose codecs' allocator keeps freed memory for reuse
 * (mimalloc's own delay, MIMALLOC_PURGE_DELAY=10), in alternating rounds.
 */
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { codecs, compressedBatch } from '../test/helpers/compressed-batch.js';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { WireClient } from '../test/helpers/wire-client.js';
import { createTopic, produceRequest } from '../test/helpers/wire-produce.js';
import { alternating, cpuSeconds, lowest } from './measure.js';
import { compared, type Row } from './table.js';

/** A broker started with `MIMALLOC_PURGE_DELAY` set to `delay` in its environment (which brook keeps). */
async function serveWithPurgeDelay(delay: string): Promise<ServeProcess> {
  // The child takes the environment as it is when spawned.
  process.env['MIMALLOC_PURGE_DELAY'] = delay;
  try {
    return await startServe(['--log-level', 'warn']);
  } finally {
    delete process.env['MIMALLOC_PURGE_DELAY'];
  }
}

export async function codecAllocatorBench(smoke: boolean): Promise<Row[]> {
  const batches = smoke ? 5 : 200;
  const lz4 = codecs.find((c) => c.name === 'lz4')!;
  const records = Array.from({ length: 1000 }, (_, i) => ({ value: Buffer.from(`value ${i} `.repeat(100)) }));
  const raw = records.reduce((n, r) => n + r.value.length, 0);
  const batch = compressedBatch(records, lz4);
  const brook = await startServe(['--log-level', 'warn']);
  const kept = await serveWithPurgeDelay('10');
  const clients: WireClient[] = [];
  try {
    /** Broker CPU per batch (ms) over `batches` Produce requests sent one after another. */
    const contender = async (serve: ServeProcess): Promise<(round: number) => Promise<number>> => {
      const client = await WireClient.connect(serve.port);
      clients.push(client);
      await createTopic(client, 'lz4', 1);
      return async () => {
        const before = cpuSeconds(serve.child.pid!);
        for (let i = 0; i < batches; i++) {
          const answer = await client.request(ProduceRequest, ProduceResponse, 9, produceRequest('lz4', 0, batch));
          if (answer.responses[0]!.partitionResponses[0]!.errorCode !== 0) throw new Error('an lz4 batch was refused');
        }
        return ((cpuSeconds(serve.child.pid!) - before) / batches) * 1e3;
      };
    };
    const [freed, keeping] = await alternating(smoke ? 1 : 5, [await contender(brook), await contender(kept)]);
    return [
      compared(
        `broker CPU per lz4 batch of ${Math.round(raw / 1024)} KiB of records, checked on the checks thread (ms)`,
        lowest(freed!),
        lowest(keeping!),
        "the codecs' allocator keeping freed memory",
        2,
      ),
    ];
  } finally {
    for (const client of clients) client.close();
    await Promise.all([brook.stop(), kept.stop()]);
  }
}
