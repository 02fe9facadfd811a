/**
 * What a broker keeps of many written partitions: `brook serve`'s RSS once 2,000 partitions were
 * each written twice and then left idle, against a broker given the same bytes for one partition,
 * left idle as long, in the same run.
 */
import { readFile, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { buildBatch } from '../test/helpers/batch.js';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { WireClient } from '../test/helpers/wire-client.js';
import { createTopic } from '../test/helpers/wire-produce.js';
import { compared, fmt, type Row } from './table.js';

/** Per partition and round: one batch of 256 KB, so that each partition's buffers grow well past their first size. */
const BATCH = buildBatch(Array.from({ length: 64 }, (_, i) => ({ value: Buffer.alloc(4096, i) })));
/** Partitions a Produce request carries. */
const PER_REQUEST = 40;
/** Partitions a topic has: creating thousands in one request outlasts the wire client's wait. */
const PER_TOPIC = 200;

async function rssBytes(serve: ServeProcess): Promise<number> {
  const status = await readFile(`/proc/${serve.child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

/** Writes `partitions` partitions (in topics of PER_TOPIC) twice, every partition of a round before the next round. */
async function writeTwice(serve: ServeProcess, partitions: number): Promise<void> {
  const client = await WireClient.connect(serve.port);
  const topics = Array.from({ length: Math.ceil(partitions / PER_TOPIC) }, (_, k) => ({
    name: `wide-${k}`,
    partitions: Math.min(PER_TOPIC, partitions - k * PER_TOPIC),
  }));
  try {
    for (const topic of topics) await createTopic(client, topic.name, topic.partitions);
    for (let round = 0; round < 2; round++) {
      for (const topic of topics) {
        for (let first = 0; first < topic.partitions; first += PER_REQUEST) {
          const indexes = Array.from({ length: Math.min(PER_REQUEST, topic.partitions - first) }, (_, i) => first + i);
          const response = await client.request(ProduceRequest, ProduceResponse, 9, {
            transactionalId: null,
            acks: 1,
            timeoutMs: 30_000,
            topicData: [{ name: topic.name, partitionData: indexes.map((index) => ({ index, records: BATCH })) }],
          });
          const failed = response.responses[0]!.partitionResponses.find((p) => p.errorCode !== 0);
          if (failed !== undefined) throw new Error(`produce to ${topic.name}/${failed.index} failed with ${failed.errorCode}`);
        }
      }
    }
  } finally {
    client.close();
  }
}

export async function partitionMemoryBench(smoke: boolean): Promise<Row[]> {
  const partitions = smoke ? 20 : 2000;
  const idleMs = smoke ? 1000 : 20_000;
  const wide = await startServe(['--log-level', 'warn']);
  const narrow = await startServe(['--log-level', 'warn']);
  try {
    await writeTwice(narrow, 1);
    await writeTwice(wide, partitions);
    await sleep(idleMs);
    const [wideRss, narrowRss] = [await rssBytes(wide), await rssBytes(narrow)];
    const MB = 1e6;
    return [
      compared(
        `RSS after writing ${fmt(partitions)} partitions twice and ${idleMs / 1000} s idle (MB)`,
        wideRss / MB,
        narrowRss / MB,
        'RSS with one partition written twice, as idle',
      ),
    ];
  } finally {
    for (const serve of [wide, narrow]) {
      await serve.stop();
      await rm(serve.dataDir, { recursive: true, force: true });
    }
  }
}
