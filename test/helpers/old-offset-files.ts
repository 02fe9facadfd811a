/**
 * The offset files of an earlier brook, written as it wrote them, for tests of their move into
 * `__consumer_offsets`: its log of changes (`group-offsets-<g>.log`, records as
 * src/groups/offset-records.ts reads them) and, older still, `group-offsets.json`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sealFrame } from '../../src/files/framed-records.js';
import type { OffsetChange, StoredOffset, TopicPartition } from '../../src/groups/offset-state.js';
import { Writer } from '../../src/protocol/primitives/writer.js';

const COMMIT = 1;
const DELETE_OFFSETS = 2;
const DELETE_GROUP = 3;
const DELETE_TOPIC = 4;

/** Writes `changes` as the log of generation `generation` in `dir`. */
export async function writeOldOffsetLog(dir: string, changes: readonly OffsetChange[], generation = 0): Promise<void> {
  await writeFile(join(dir, `group-offsets-${generation}.log`), Buffer.concat(changes.map(encodeRecord)));
}

/** Writes `group-offsets.json` holding `groups` (group → offsets). */
export async function writeLegacyOffsetsFile(dir: string, groups: Readonly<Record<string, readonly Omit<StoredOffset, 'commitTimestamp'>[]>>): Promise<void> {
  // Object.fromEntries defines own properties: a group or topic named __proto__ is one like any other.
  const contents = Object.fromEntries(
    Object.entries(groups).map(([groupId, offsets]) => {
      const topics = [...new Set(offsets.map((o) => o.topic))];
      const entry = (o: (typeof offsets)[number]) => [String(o.partition), { offset: String(o.offset), leaderEpoch: o.leaderEpoch, metadata: o.metadata }];
      return [groupId, Object.fromEntries(topics.map((topic) => [topic, Object.fromEntries(offsets.filter((o) => o.topic === topic).map(entry))]))];
    }),
  );
  await writeFile(join(dir, 'group-offsets.json'), JSON.stringify({ format: 'brook-group-offsets/1', groups: contents }));
}

export function encodeRecord(change: OffsetChange): Buffer {
  const w = new Writer(64);
  // The frame header, filled in by sealFrame.
  w.writeUint32(0);
  w.writeUint32(0);
  switch (change.kind) {
    case 'commit':
      w.writeInt8(COMMIT);
      w.writeCompactString(change.groupId);
      writeByTopic(w, change.offsets, (o: StoredOffset) => {
        w.writeInt32(o.partition);
        w.writeInt64(o.offset);
        w.writeInt32(o.leaderEpoch);
        w.writeInt64(BigInt(o.commitTimestamp));
        w.writeCompactString(o.metadata);
      });
      break;
    case 'deleteOffsets':
      w.writeInt8(DELETE_OFFSETS);
      w.writeCompactString(change.groupId);
      writeByTopic(w, change.partitions, (p: TopicPartition) => w.writeInt32(p.partition));
      break;
    case 'deleteGroup':
      w.writeInt8(DELETE_GROUP);
      w.writeCompactString(change.groupId);
      break;
    case 'deleteTopic':
      w.writeInt8(DELETE_TOPIC);
      w.writeCompactString(change.topic);
  }
  return sealFrame(w.finish());
}

/** Entries grouped into runs of the same topic, in their order (a later entry for a partition wins). */
function writeByTopic<T extends TopicPartition>(w: Writer, entries: readonly T[], writeEntry: (entry: T) => void): void {
  const runs: T[][] = [];
  for (const entry of entries) {
    const last = runs.at(-1);
    if (last !== undefined && last[0]!.topic === entry.topic) last.push(entry);
    else runs.push([entry]);
  }
  w.writeUnsignedVarint(runs.length);
  for (const run of runs) {
    w.writeCompactString(run[0]!.topic);
    w.writeUnsignedVarint(run.length);
    for (const entry of run) writeEntry(entry);
  }
}
