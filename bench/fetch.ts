/** Fetch throughput to a librdkafka consumer: brook against librdkafka's mock cluster. */
import type { ServeProcess } from '../test/helpers/serve-process.js';
import { consumeLoad, produceLoad } from './kafka-load.js';
import { alternating, highest } from './measure.js';
import { compared, type Row } from './table.js';

export async function fetchThroughput(serve: ServeProcess, smoke: boolean): Promise<Row[]> {
  // The topic is read `passes` times, not made larger: the mock keeps only ~5 MB per partition.
  const load = { messages: smoke ? 2_000 : 160_000, batch: 1000, passes: smoke ? 1 : 20 };
  await produceLoad(serve.bootstrap, 'fetch', load);
  let bytesPerMessage = 0;
  const [brook, mock] = (await alternating(smoke ? 1 : 3, [
    async () => {
      const r = await consumeLoad(serve.bootstrap, 'fetch', load);
      bytesPerMessage = r.bytes / r.messages;
      return r.messages / r.seconds;
    },
    async () => {
      const r = await consumeLoad('mock', 'fetch', load);
      return r.messages / r.seconds;
    },
  ])).map(highest);
  return [
    compared('fetch to a librdkafka consumer (msgs/s)', brook!, mock!, 'librdkafka mock'),
    compared(`  same: MB/s of ${bytesPerMessage}-byte values`, (brook! * bytesPerMessage) / 1e6, (mock! * bytesPerMessage) / 1e6, '', 1),
  ];
}
