/**
 * The records of an earlier brook's committed-offsets log and snapshots (offset-files.ts), read
 * to move them into `__consumer_offsets`; big-endian:
 *
 *   body length (u32) | crc32c of the body (u32) | body
 *   body: type (u8) | fields
 *     1 commit:         group | topic count | per topic: name | partition count |
 *                       per partition: partition (i32) | offset (i64) | leader epoch (i32) | commit timestamp (i64) | metadata
 *     2 delete offsets: group | topic count | per topic: name | partition count | partitions (i32 each)
 *     3 delete group:   group
 *     4 delete topic:   topic
 *   names and metadata are compact strings (unsigned varint length + 1, UTF-8), counts unsigned varints.
 *
 * A record that is cut short or fails its CRC is what a write cut off by a crash leaves; one that
 * checks out but does not parse was not written by brook.
 */
import { scanDecoded, type RecordScan } from '../files/framed-records.js';
import { ProtocolError } from '../protocol/primitives/errors.js';
import { Reader } from '../protocol/primitives/reader.js';
import type { OffsetChange, StoredOffset } from './offset-state.js';

const COMMIT = 1;
const DELETE_OFFSETS = 2;
const DELETE_GROUP = 3;
const DELETE_TOPIC = 4;

function readByTopic<T>(r: Reader, readEntry: (topic: string) => T): T[] {
  const entries: T[] = [];
  for (let topics = r.readUnsignedVarint(); topics > 0; topics--) {
    const topic = r.readCompactString();
    for (let count = r.readUnsignedVarint(); count > 0; count--) entries.push(readEntry(topic));
  }
  return entries;
}

function decodeBody(r: Reader): OffsetChange {
  const type = r.readInt8();
  switch (type) {
    case COMMIT: {
      const groupId = r.readCompactString();
      const offsets = readByTopic(r, (topic): StoredOffset => {
        const partition = r.readInt32();
        const offset = r.readInt64();
        const leaderEpoch = r.readInt32();
        const commitTimestamp = Number(r.readInt64());
        return { topic, partition, offset, leaderEpoch, commitTimestamp, metadata: r.readCompactString() };
      });
      return { kind: 'commit', groupId, offsets };
    }
    case DELETE_OFFSETS: {
      const groupId = r.readCompactString();
      return { kind: 'deleteOffsets', groupId, partitions: readByTopic(r, (topic) => ({ topic, partition: r.readInt32() })) };
    }
    case DELETE_GROUP:
      return { kind: 'deleteGroup', groupId: r.readCompactString() };
    case DELETE_TOPIC:
      return { kind: 'deleteTopic', topic: r.readCompactString() };
    default:
      throw new ProtocolError(`unknown record type ${type}`);
  }
}

export type { RecordScan };

/**
 * Hands each intact record's change to `onChange`, in order, up to the first record that is cut
 * short or fails its CRC. A record that checks out but does not parse throws: it was written
 * by something else, and cutting it would lose what it holds.
 */
export function scanRecords(bytes: Buffer, onChange: (change: OffsetChange) => void): RecordScan {
  return scanDecoded(bytes, decodeBody, onChange);
}
