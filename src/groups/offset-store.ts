/**
 * Committed offsets by group, held in memory and in one JSON file in the data directory.
 * Each change rewrites the file durably (temp file, fsync, rename, fsync of the directory);
 * changes that arrive while a write is under way go out together in the next one. A change is
 * visible, and its promise resolves, only once the file holding it is in place.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isJsonObject, readFileIfExists, writeFileDurably } from '../files/durable-file.js';

export const OFFSETS_FILE = 'group-offsets.json';
const FORMAT = 'brook-group-offsets/1';

export interface CommittedOffset {
  readonly offset: bigint;
  readonly leaderEpoch: number;
  readonly metadata: string;
}

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export interface PartitionOffset extends CommittedOffset, TopicPartition {}

/** topic → partition → committed offset */
export type GroupOffsets = ReadonlyMap<string, ReadonlyMap<number, CommittedOffset>>;

type Change =
  | { readonly kind: 'commit'; readonly groupId: string; readonly offsets: readonly PartitionOffset[] }
  | { readonly kind: 'deleteOffsets'; readonly groupId: string; readonly partitions: readonly TopicPartition[] }
  | { readonly kind: 'deleteGroup'; readonly groupId: string }
  | { readonly kind: 'deleteTopic'; readonly topic: string };

interface Queued {
  readonly change: Change;
  readonly done: (err?: Error) => void;
}

interface FileEntry {
  offset: string;
  leaderEpoch: number;
  metadata: string;
}

interface FileContents {
  format: string;
  groups: Record<string, Record<string, Record<string, FileEntry>>>;
}

export class OffsetStore {
  private groups: ReadonlyMap<string, GroupOffsets>;
  private queue: Queued[] = [];
  private writing: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly file: string,
    groups: ReadonlyMap<string, GroupOffsets>,
  ) {
    this.groups = groups;
  }

  static async open(file: string): Promise<OffsetStore> {
    await mkdir(dirname(file), { recursive: true });
    const bytes = await readFileIfExists(file);
    return new OffsetStore(file, bytes === undefined ? new Map() : parse(file, bytes.toString('utf8')));
  }

  has(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  offsets(groupId: string): GroupOffsets | undefined {
    return this.groups.get(groupId);
  }

  commit(groupId: string, offsets: readonly PartitionOffset[]): Promise<void> {
    return this.enqueue({ kind: 'commit', groupId, offsets });
  }

  /** Removes the group's offsets of these partitions; a group left without offsets goes. */
  deleteOffsets(groupId: string, partitions: readonly TopicPartition[]): Promise<void> {
    return this.enqueue({ kind: 'deleteOffsets', groupId, partitions });
  }

  deleteGroup(groupId: string): Promise<void> {
    return this.enqueue({ kind: 'deleteGroup', groupId });
  }

  /** Removes the topic's offsets from every group; a group left without offsets goes. */
  deleteTopic(topic: string): Promise<void> {
    return this.enqueue({ kind: 'deleteTopic', topic });
  }

  /** Waits for the writes under way; later changes are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await this.writing;
  }

  private enqueue(change: Change): Promise<void> {
    if (this.closed) return Promise.reject(new Error('offset store is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ change, done: (err) => (err === undefined ? resolve() : reject(err)) });
      this.writing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const next = applyChanges(
        this.groups,
        batch.map((q) => q.change),
      );
      try {
        await writeFileDurably(this.file, serialize(next));
      } catch (err) {
        for (const q of batch) q.done(err as Error);
        continue;
      }
      this.groups = next;
      for (const q of batch) q.done();
    }
    this.writing = undefined;
  }
}

/** A new map with the changes applied; the groups they touch are copied, the rest shared. */
function applyChanges(groups: ReadonlyMap<string, GroupOffsets>, changes: readonly Change[]): Map<string, GroupOffsets> {
  const next = new Map(groups);
  const copied = new Map<string, Map<string, Map<number, CommittedOffset>>>();
  const copyOf = (groupId: string): Map<string, Map<number, CommittedOffset>> => {
    let topics = copied.get(groupId);
    if (topics === undefined) {
      topics = new Map([...(next.get(groupId) ?? [])].map(([topic, partitions]) => [topic, new Map(partitions)]));
      copied.set(groupId, topics);
      next.set(groupId, topics);
    }
    return topics;
  };
  const deleteGroup = (groupId: string): void => {
    next.delete(groupId);
    copied.delete(groupId);
  };
  for (const change of changes) {
    switch (change.kind) {
      case 'deleteGroup':
        deleteGroup(change.groupId);
        break;
      case 'deleteOffsets': {
        if (!next.has(change.groupId)) break;
        const topics = copyOf(change.groupId);
        for (const { topic, partition } of change.partitions) {
          const partitions = topics.get(topic);
          partitions?.delete(partition);
          if (partitions?.size === 0) topics.delete(topic);
        }
        if (topics.size === 0) deleteGroup(change.groupId);
        break;
      }
      case 'deleteTopic':
        for (const [groupId, topics] of next) {
          if (!topics.has(change.topic)) continue;
          const copy = copyOf(groupId);
          copy.delete(change.topic);
          if (copy.size === 0) deleteGroup(groupId);
        }
        break;
      case 'commit': {
        const topics = copyOf(change.groupId);
        for (const { topic, partition, offset, leaderEpoch, metadata } of change.offsets) {
          let partitions = topics.get(topic);
          if (partitions === undefined) topics.set(topic, (partitions = new Map()));
          partitions.set(partition, { offset, leaderEpoch, metadata });
        }
      }
    }
  }
  return next;
}

function serialize(groups: ReadonlyMap<string, GroupOffsets>): string {
  const contents: FileContents = {
    format: FORMAT,
    groups: toObject(groups, (topics) =>
      toObject(topics, (partitions) => toObject(partitions, (c) => ({ offset: String(c.offset), leaderEpoch: c.leaderEpoch, metadata: c.metadata }))),
    ),
  };
  return JSON.stringify(contents);
}

/**
 * A map as a JSON object. Object.fromEntries defines own properties, so every legal group or
 * topic name, "__proto__" too, stays a key; assigning it would set the object's prototype.
 */
function toObject<K, V, W>(map: ReadonlyMap<K, V>, value: (v: V) => W): Record<string, W> {
  return Object.fromEntries([...map].map(([key, v]) => [String(key), value(v)]));
}

/** topic → partition → entry, as serialize() writes them. */
function isGroupEntry(topics: unknown): boolean {
  return (
    isJsonObject(topics) &&
    Object.values(topics).every((partitions) => isJsonObject(partitions) && Object.entries(partitions).every(([p, e]) => /^\d+$/.test(p) && isFileEntry(e)))
  );
}

function isFileEntry(value: unknown): value is FileEntry {
  return (
    isJsonObject(value) &&
    typeof value.offset === 'string' &&
    /^-?\d+$/.test(value.offset) &&
    Number.isInteger(value.leaderEpoch) &&
    typeof value.metadata === 'string'
  );
}

function parse(file: string, text: string): Map<string, GroupOffsets> {
  let contents: FileContents;
  try {
    contents = JSON.parse(text) as FileContents;
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (contents?.format !== FORMAT) throw new Error(`${file} is not a brook group offsets file (format '${String(contents?.format)}')`);
  if (!isJsonObject(contents.groups) || !Object.values(contents.groups).every(isGroupEntry)) {
    throw new Error(`${file} is JSON, but not of the form brook writes there`);
  }
  const groups = new Map<string, GroupOffsets>();
  // JSON.parse defines own properties too, so a "__proto__" key is an entry like any other.
  for (const [groupId, topics] of Object.entries(contents.groups)) {
    groups.set(
      groupId,
      new Map(
        Object.entries(topics).map(([topic, partitions]) => [
          topic,
          new Map(Object.entries(partitions).map(([p, e]) => [Number(p), { offset: BigInt(e.offset), leaderEpoch: e.leaderEpoch, metadata: e.metadata }])),
        ]),
      ),
    );
  }
  return groups;
}
