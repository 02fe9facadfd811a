import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { InitProducerIdRequest, InitProducerIdResponse } from '../../src/protocol/messages/init-producer-id.js';
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/produce.js';
import { valuesBatch } from '../helpers/batch.js';
import { readTopic } from '../helpers/exactly-once.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { WireClient } from '../helpers/wire-client.js';
import { createTopic, produceRequest } from '../helpers/wire-produce.js';

const INVALID_PRODUCER_EPOCH = 47;
const TOPIC = 'fenced';
const PARTITIONS = [0, 1];

let serve: ServeProcess;
let restarted: WireClient;
let zombie: WireClient;
before(async () => {
  serve = await startServe();
  restarted = await WireClient.connect(serve.port);
  zombie = await WireClient.connect(serve.port);
  await createTopic(restarted, TOPIC, PARTITIONS.length);
});
after(async () => {
  restarted?.close();
  zombie?.close();
  await serve.stop();
  await rm(serve.dataDir, { recursive: true, force: true });
});

interface Batch {
  readonly partition: number;
  readonly epoch: number;
  readonly seq: number;
  /** Record values are prefix0, prefix1, … */
  readonly prefix: string;
  readonly count: number;
}

function requestFor(producerId: bigint, b: Batch): ProduceRequest {
  return produceRequest(TOPIC, b.partition, valuesBatch(b.count, { producerId, producerEpoch: b.epoch, baseSequence: b.seq }, b.prefix));
}

const sorted = (read: readonly (readonly [number, number, string])[]) => [...read].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
const named = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

/** Sends the batches back to back, then reads every answer as [errorCode, baseOffset]. */
async function pipelined(client: WireClient, producerId: bigint, batches: readonly Batch[]): Promise<number[][]> {
  client.sendRaw(Buffer.concat(batches.map((b) => client.frame(ProduceRequest, 9, requestFor(producerId, b)))));
  const answers = [];
  for (const _ of batches) {
    const p = client.decode((await client.nextFrame())!, ProduceResponse, 0, 9).body.responses[0]!.partitionResponses[0]!;
    answers.push([p.errorCode, Number(p.baseOffset)]);
  }
  return answers;
}

async function produce(client: WireClient, producerId: bigint, b: Batch): Promise<number[]> {
  return (await pipelined(client, producerId, [b]))[0]!;
}

async function initProducerId(producerId: bigint, producerEpoch: number): Promise<{ producerId: bigint; producerEpoch: number }> {
  const r = await restarted.request(InitProducerIdRequest, InitProducerIdResponse, 4, {
    transactionalId: null,
    transactionTimeoutMs: 60_000,
    producerId,
    producerEpoch,
  });
  assert.equal(r.errorCode, 0);
  return r;
}

test('a producer restarts with a bumped epoch; its old in-flight batches arrive late and are fenced, never appended', async (t) => {
  const { producerId } = await initProducerId(-1n, -1);
  for (const partition of PARTITIONS) {
    assert.deepEqual(await produce(zombie, producerId, { partition, epoch: 0, seq: 0, prefix: `e0-a-p${partition}-`, count: 3 }), [0, 0]);
    assert.deepEqual(await produce(zombie, producerId, { partition, epoch: 0, seq: 3, prefix: `e0-b-p${partition}-`, count: 2 }), [0, 3]);
  }
  // In flight when the producer restarted: its next batches, and a retry of one already written.
  const late = PARTITIONS.flatMap((partition) => [
    { partition, epoch: 0, seq: 5, prefix: `late-next-p${partition}-`, count: 2 },
    { partition, epoch: 0, seq: 3, prefix: `e0-b-p${partition}-`, count: 2 },
  ]);

  const bumped = await initProducerId(producerId, 0);
  assert.deepEqual([bumped.producerId, bumped.producerEpoch], [producerId, 1], 'InitProducerId with the id and epoch bumps the epoch');
  for (const partition of PARTITIONS) {
    assert.deepEqual(await produce(restarted, producerId, { partition, epoch: 1, seq: 0, prefix: `e1-a-p${partition}-`, count: 1 }), [0, 5]);
  }

  // The late batches arrive together on the old connection, as a pipelined burst.
  const answers = await pipelined(zombie, producerId, late);
  assert.deepEqual(
    answers,
    late.map(() => [INVALID_PRODUCER_EPOCH, -1]),
  );

  // The new epoch carries on where it was.
  for (const partition of PARTITIONS) {
    assert.deepEqual(await produce(restarted, producerId, { partition, epoch: 1, seq: 1, prefix: `e1-b-p${partition}-`, count: 1 }), [0, 6]);
  }
  const expected = PARTITIONS.flatMap((partition) =>
    [...named(`e0-a-p${partition}-`, 3), ...named(`e0-b-p${partition}-`, 2), `e1-a-p${partition}-0`, `e1-b-p${partition}-0`].map((v, offset) => [
      partition,
      offset,
      v,
    ]),
  );
  assert.deepEqual(sorted(await readTopic(serve.bootstrap, TOPIC)), expected);

  // The broker is killed and comes back from its data dir: the zombie is still fenced.
  await serve.stop('SIGKILL');
  serve = await startServe([], serve.dataDir);
  zombie.close();
  zombie = await WireClient.connect(serve.port);
  assert.deepEqual(
    await pipelined(zombie, producerId, late),
    late.map(() => [INVALID_PRODUCER_EPOCH, -1]),
  );
  assert.deepEqual(sorted(await readTopic(serve.bootstrap, TOPIC)), expected);
  t.diagnostic(
    `${late.length} late epoch-0 batches sent after the epoch-1 restart, then again after a SIGKILL and restart of the broker: all fenced with 47, none appended`,
  );
});
