/**
 * What compression bombs cost other connections: the worst ApiVersions round trip on one
 * connection while another sends Produce requests whose small gzip payloads inflate to tens of
 * megabytes, beside the same probe with no bombs.
 */
import { gzipSync } from 'node:zlib';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { ProduceRequest } from '../src/protocol/messages/produce.js';
import { sealBatch } from '../test/helpers/compressed-batch.js';
import type { ServeProcess } from '../test/helpers/serve-process.js';
import { WireClient } from '../test/helpers/wire-client.js';
import { createTopic, produceRequest } from '../test/helpers/wire-produce.js';
import { alternating, lowest } from './measure.js';
import { compared, fmt, type Row } from './table.js';

const MB = 1e6;

/** Probes ApiVersions one after another until `busy` settles (and at least `probes` times); the worst round trip in ms. */
async function worstApiVersions(probe: WireClient, busy: Promise<unknown>, probes: number): Promise<number> {
  let done = false;
  void busy.finally(() => (done = true));
  let worst = 0;
  for (let i = 0; !done || i < probes; i++) {
    const start = performance.now();
    await probe.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'bench', clientSoftwareVersion: '1' });
    worst = Math.max(worst, performance.now() - start);
  }
  await busy;
  return worst;
}

/** Sends `requests` Produce requests of `bomb` back to back on `on`; resolves once all are answered. */
async function bombard(on: WireClient, topic: string, bomb: Buffer, requests: number): Promise<void> {
  on.sendRaw(Buffer.concat(Array.from({ length: requests }, () => on.frame(ProduceRequest, 9, produceRequest(topic, 0, bomb)))));
  for (let i = 0; i < requests; i++) if ((await on.nextFrame(120_000)) === undefined) throw new Error('the broker closed the bombing connection');
}

export async function decompressionBench(serve: ServeProcess, smoke: boolean): Promise<Row[]> {
  const requests = smoke ? 2 : 10;
  const inflated = smoke ? 1 * MB : 47 * MB;
  // Zeros: gzip's best ratio, about 1000 to 1; they decompress within the request's room, then fail the record walk.
  const bomb = sealBatch(1, gzipSync(Buffer.alloc(inflated), { level: 9 }), 1);
  const bomber = await WireClient.connect(serve.port);
  const probe = await WireClient.connect(serve.port);
  try {
    await createTopic(bomber, 'bombed', 1);
    const probes = smoke ? 20 : 200;
    const [bombed, quiet] = (await alternating(smoke ? 1 : 3, [
      () => worstApiVersions(probe, bombard(bomber, 'bombed', bomb, requests), probes),
      () => worstApiVersions(probe, Promise.resolve(), probes),
    ])) as [number[], number[]];
    return [
      compared(
        `ApiVersions worst latency, ${requests} Produce of ${fmt(bomb.length / 1e3)} KB gzip inflating to ${fmt(inflated / MB)} MB each on another connection (ms)`,
        lowest(bombed),
        lowest(quiet),
        'no bombs',
        1,
      ),
    ];
  } finally {
    bomber.close();
    probe.close();
  }
}
