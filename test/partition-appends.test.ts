/**
 * Every writer of a partition appends in arrival order through its one `Partition`: a transaction
 * marker asked for while a produced batch still waits to be checked (as one on the checks thread
 * does) is stored after that batch, on real storage, through the coordinator's participants.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Partitions } from '../src/broker/partition.js';
import { ProducerActivity } from '../src/broker/producer-activity.js';
import { txnParticipants } from '../src/broker/txn-participants.js';
import { offsetsLog } from '../src/broker/offsets-log.js';
import { GroupCoordinator } from '../src/groups/group-coordinator.js';
import { UNCHECKED } from '../src/idempotence/producer-decision.js';
import { Storage } from '../src/log/storage.js';
import { isControl, readBatchHeader } from '../src/protocol/record-batch.js';
import { batch, closeAtEnd, readAll, tempDir } from './helpers/log.js';

test("a transaction's marker waits for the partition's turn behind a batch still being checked", async (t) => {
  const dir = await tempDir(t);
  const storage = closeAtEnd(t, await Storage.open(dir));
  await storage.createTopic('t', 1);
  const partitions = new Partitions(storage, new ProducerActivity(), () => {});
  const offsets = offsetsLog(partitions, { offsetsTopicNumPartitions: 1, offsetsTopicSegmentBytes: 1 << 20 }, () => 0);
  const groups = closeAtEnd(t, await GroupCoordinator.open(dir, offsets, { log: pino({ level: 'silent' }) }));
  const participants = txnParticipants(partitions, groups, () => 0);
  const partition = partitions.get('t', 0)!;
  const now = Date.now();

  // Producer 7's transaction holds the partition's first batch.
  const data = batch(2, { producerId: 7n, producerEpoch: 0, baseSequence: 0, transactional: true }, 'txn');
  assert.equal(partition.append(data.bytes, data.header, now, UNCHECKED).kind, 'append');

  // A plain batch arrives, its check not done yet; then the coordinator asks for the commit marker.
  let checked!: (bytes: Buffer) => void;
  const held = partition.turn(new Promise<Buffer>((resolve) => (checked = resolve)), (bytes) =>
    partition.append(bytes, readBatchHeader(bytes), now, UNCHECKED),
  );
  const marked = participants.writeMarker({ topic: 't', partition: 0 }, 7n, 0, 'commit');
  checked(batch(1, {}, 'plain').bytes);
  assert.equal((await held).kind, 'append');
  await marked;

  const stored = (await readAll(partition.log)).map((b) => {
    const h = readBatchHeader(b);
    return [h.baseOffset, isControl(h.attributes) ? 'marker' : String(h.producerId)];
  });
  assert.deepEqual(stored, [
    [0, '7'],
    [2, '-1'],
    [3, 'marker'],
  ]);
  assert.equal(partition.log.lastStableOffset, 4, 'the transaction is committed');
});
