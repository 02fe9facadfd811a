import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  coordinatorRecordType,
  decodeCoordinatorKey,
  decodeCoordinatorValue,
  encodeCoordinatorKey,
  encodeCoordinatorValue,
} from '../src/protocol/coordinator-record.js';
import { OffsetCommitKey, OffsetCommitValue, ProtocolError, TransactionLogKey, ZERO_UUID } from '../src/protocol/messages/index.js';

const name = fc.string({ maxLength: 40 });
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });

test('an offset commit key and value decode to what was encoded, at each value version', () => {
  fc.assert(
    fc.property(
      name,
      name,
      fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      int64,
      fc.integer({ min: -1, max: 2 ** 31 - 1 }),
      name,
      int64,
      fc.integer({ min: 0, max: 4 }),
      (group, topic, partition, offset, leaderEpoch, metadata, commitTimestamp, version) => {
        const key = encodeCoordinatorKey(OffsetCommitKey, { group, topic, partition });
        assert.equal(coordinatorRecordType(key), 1);
        assert.deepEqual(decodeCoordinatorKey(OffsetCommitKey, key), { group, topic, partition });
        const expireTimestamp = version === 1 ? commitTimestamp : -1n;
        const value = { offset, leaderEpoch: version >= 3 ? leaderEpoch : -1, metadata, commitTimestamp, expireTimestamp, topicId: ZERO_UUID };
        const back = decodeCoordinatorValue(OffsetCommitValue, encodeCoordinatorValue(OffsetCommitValue, version, value));
        assert.deepEqual(back, { version, value });
      },
    ),
  );
});

test("an offset commit record's bytes are Kafka's: int16 type, strings with int16 lengths; value v3 as Burrow reads it", () => {
  const key = encodeCoordinatorKey(OffsetCommitKey, { group: 'g', topic: 'tp', partition: 3 });
  assert.deepEqual(key, Buffer.from([0, 1, 0, 1, 0x67, 0, 2, 0x74, 0x70, 0, 0, 0, 3]));
  const value = encodeCoordinatorValue(OffsetCommitValue, 3, { offset: 42n, leaderEpoch: 7, metadata: 'm', commitTimestamp: 1000n, expireTimestamp: -1n });
  const expected = Buffer.alloc(2 + 8 + 4 + 2 + 1 + 8);
  expected.writeInt16BE(3, 0);
  expected.writeBigInt64BE(42n, 2);
  expected.writeInt32BE(7, 10);
  expected.writeInt16BE(1, 14);
  expected.write('m', 16);
  expected.writeBigInt64BE(1000n, 17);
  assert.deepEqual(value, expected);
});

test('a key or value cut short, or with bytes left over, is a ProtocolError', () => {
  const key = encodeCoordinatorKey(TransactionLogKey, { transactionalId: 'tx' });
  assert.equal(coordinatorRecordType(key), 0);
  assert.throws(() => coordinatorRecordType(Buffer.from([0])), ProtocolError);
  assert.throws(() => decodeCoordinatorKey(TransactionLogKey, key.subarray(0, key.length - 1)), ProtocolError);
  assert.throws(() => decodeCoordinatorKey(TransactionLogKey, Buffer.concat([key, Buffer.from([0])])), ProtocolError);
  assert.throws(() => decodeCoordinatorValue(OffsetCommitValue, Buffer.from([0])), ProtocolError);
  assert.throws(() => decodeCoordinatorValue(OffsetCommitValue, Buffer.from([0, 9, 0, 0])), ProtocolError);
});
