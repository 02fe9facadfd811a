/** A transactional id's state as a record of __transaction_state: what is written reads back, and Kafka's codec reads Kafka's fields from it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeCoordinatorValue } from '../src/protocol/coordinator-record.js';
import { TransactionLogValue } from '../src/protocol/messages/coordinator-records.js';
import type { Txn, TxnState } from '../src/transactions/txn-machine.js';
import { readTxnRecord, txnRecord, txnTombstone } from '../src/transactions/txn-log-records.js';

const STATES: TxnState[] = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort'];
const name = fc.string({ maxLength: 20 });
const id = fc.oneof(fc.constant(-1n), fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }));
const epoch = fc.integer({ min: -1, max: 32767 });
const time = fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 2 ** 50 }));

/** Partitions grouped by topic, as a record holds them (Kafka keeps a set). */
const partitions = fc
  .uniqueArray(fc.record({ topic: fc.constantFrom('a', 'b', 'ü'), partition: fc.integer({ min: 0, max: 99 }) }, { noNullPrototype: true }), {
    selector: (p) => `${p.topic}/${p.partition}`,
    maxLength: 8,
  })
  .map((ps) => [...ps].sort((x, y) => (x.topic < y.topic ? -1 : x.topic > y.topic ? 1 : 0)));

const offset = fc.record(
  {
    topic: name,
    partition: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    offset: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
    leaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
    metadata: name,
  },
  { noNullPrototype: true },
);

const txn: fc.Arbitrary<Txn> = fc
  .record(
    {
      transactionalId: name,
      producerId: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
      epoch: fc.integer({ min: 0, max: 32767 }),
      lastProducerId: id,
      lastEpoch: epoch,
      nextProducerId: id,
      timeoutMs: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      state: fc.constantFrom(...STATES),
      partitions,
      groups: fc.array(fc.record({ groupId: name, offsets: fc.array(offset, { maxLength: 3 }) }, { noNullPrototype: true }), { maxLength: 3 }),
      startMs: time,
      updateMs: time,
    },
    { noNullPrototype: true },
  )
  .map((t) => (t.state === 'Empty' ? { ...t, partitions: [] } : t));

test('a state record reads back as the state written; a tombstone as the removal', () => {
  fc.assert(
    fc.property(txn, (t) => {
      const record = txnRecord(t);
      assert.deepEqual(readTxnRecord(record.key!, record.value), t);
      const tombstone = txnTombstone(t.transactionalId);
      assert.equal(tombstone.value, null);
      assert.deepEqual(tombstone.key, record.key);
      assert.deepEqual(readTxnRecord(tombstone.key!, null), { transactionalId: t.transactionalId, removed: true });
    }),
  );
});

test("a state record is TransactionLogValue v1 as Kafka's codec reads it: the state as Kafka's byte, brook's own fields in tags it passes over", () => {
  fc.assert(
    fc.property(txn, (t) => {
      const { version, value } = decodeCoordinatorValue(TransactionLogValue, txnRecord(t).value!);
      assert.equal(version, 1);
      assert.equal(value.producerId, t.producerId);
      assert.equal(value.producerEpoch, t.epoch);
      assert.equal(value.transactionTimeoutMs, t.timeoutMs);
      assert.equal(value.transactionStatus, STATES.indexOf(t.state));
      assert.equal(value.previousProducerId, t.lastProducerId);
      assert.equal(value.nextProducerId, t.nextProducerId);
      assert.equal(value.transactionStartTimestampMs, BigInt(t.startMs));
      assert.equal(value.transactionLastUpdateTimestampMs, BigInt(t.updateMs));
      if (t.state === 'Empty') assert.equal(value.transactionPartitions, null);
      else
        assert.deepEqual(
          value.transactionPartitions!.flatMap((p) => p.partitionIds.map((partition) => ({ topic: p.topic, partition }))),
          t.partitions,
        );
    }),
  );
});
