/**
 * The data directory:
 *   metadata.json         cluster id and topics (name, topic id, partition count, own configs)
 *   producer-ids.json     start of the next producer id block: ids below it may have been handed out
 *   <topic>-<partition>/  one PartitionLog each
 * Metadata is replaced atomically; a partition directory no topic owns (an interrupted create or
 * delete) is removed at start, unless it holds files brook does not write: those are the user's.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DurableJsonFile, isJsonObject, isVersion1 } from '../files/durable-file.js';
import { compactionConfig } from './cleaner/compaction-config.js';
import { LogCleaner, type CleanerOptions, type CompactedPartition } from './cleaner/log-cleaner.js';
import { makeDirectory } from './make-directory.js';
import { resolveLogOptions, topicLogOptions, type LogOptions, type Reporter } from './options.js';
import { isPartitionFileName } from './partition-files.js';
import { PartitionLog } from './partition-log.js';
import { DEFAULT_CONFIG, type BrokerConfig } from '../settings/settings.js';
import { isTopicConfigs, topicConfig, type TopicConfig, type TopicConfigs } from '../settings/topic-configs.js';
import { topicNameProblem } from './topic-name.js';

export interface TopicInfo {
  readonly name: string;
  /** Canonical lower-case UUID, random at creation. */
  readonly topicId: string;
  readonly partitions: number;
  /** The topic configs it has of its own; the broker's settings give the rest. */
  readonly configs: TopicConfigs;
}

/** A topic as metadata.json holds it: written before topics had configs, without them. */
type StoredTopic = Omit<TopicInfo, 'configs'> & { readonly configs?: TopicConfigs };

interface Metadata {
  readonly version: 1;
  readonly clusterId: string;
  readonly topics: readonly StoredTopic[];
}

interface ProducerIds {
  readonly version: 1;
  readonly nextBlockStart: string;
}

/** Carries the topic holding the name when the create's turn came, for callers content to use it as it is. */
export class TopicExistsError extends Error {
  constructor(readonly existing: TopicInfo) {
    super(`topic '${existing.name}' already exists`);
  }
}

/** Kafka (`Topic.hasCollision`) refuses a topic whose name differs from an existing one's only in '.' against '_': metric names would collide. */
export class TopicCollisionError extends Error {
  constructor(
    name: string,
    readonly existing: TopicInfo,
  ) {
    super(`topic '${name}' collides with existing topic '${existing.name}'`);
  }
}

/** A partition count a topic cannot grow to. */
export class InvalidPartitionsError extends Error {}

/** Ids reserved durably at a time, as Kafka's ProducerIdManager does. */
const PRODUCER_ID_BLOCK = 1000n;
/** Id 0 is never handed out: some clients send 0 to mean "none". */
const FIRST_PRODUCER_ID = 1n;
export const MAX_PARTITIONS = 100_000;
const PARTITION_DIR = /^(.+)-(\d+)$/;

/** Why the topic cannot grow to `count` partitions, in Kafka's words where it has them; undefined if it can. */
export function partitionIncreaseProblem(topic: TopicInfo, count: number): string | undefined {
  if (count < topic.partitions) return `Topic currently has ${topic.partitions} partitions, which is higher than the requested ${count}.`;
  if (count === topic.partitions) return `Topic already has ${topic.partitions} partitions.`;
  if (count > MAX_PARTITIONS) return `A topic has at most ${MAX_PARTITIONS} partitions, not ${count}.`;
  return undefined;
}

function isMetadata(value: unknown): value is Metadata {
  return isVersion1(value) && typeof value.clusterId === 'string' && Array.isArray(value.topics) && value.topics.every(isTopicInfo);
}

function isTopicInfo(value: unknown): value is StoredTopic {
  if (!isJsonObject(value)) return false;
  const { name, topicId, partitions, configs } = value;
  const counted = typeof partitions === 'number' && Number.isInteger(partitions) && partitions >= 1 && partitions <= MAX_PARTITIONS;
  return (
    typeof name === 'string' &&
    topicNameProblem(name) === undefined &&
    typeof topicId === 'string' &&
    counted &&
    (configs === undefined || isTopicConfigs(configs))
  );
}

function isProducerIds(value: unknown): value is ProducerIds {
  return isVersion1(value) && typeof value.nextBlockStart === 'string' && /^\d+$/.test(value.nextBlockStart);
}

/** The directories of `dataDir` named as partitions are: a legal topic name, then a partition number. */
async function partitionNamedDirectories(dataDir: string): Promise<string[]> {
  const dirs = (await readdir(dataDir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  return dirs.filter((dir) => topicNameProblem(PARTITION_DIR.exec(dir)?.[1] ?? '') === undefined);
}

/** A file in `dir` that brook does not write in partitions (or `dir` itself, if a file): then the directory is not one of brook's. */
async function foreignFile(dir: string): Promise<string | undefined> {
  try {
    return (await readdir(dir)).find((name) => !isPartitionFileName(name));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR') return dir;
    throw err;
  }
}

/** The log options every partition runs with; those a topic config gives come from `topicDefaults` and the topic's own. */
export interface StorageOptions extends Omit<LogOptions, 'segmentBytes' | 'segmentMs' | 'retentionMs' | 'retentionBytes' | 'maxMessageBytes'> {
  /** The broker settings that topics without their own configs follow; the settings' defaults if not given. */
  readonly topicDefaults?: BrokerConfig;
  /** The log cleaner's settings; without them, no cleaner runs. */
  readonly cleaner?: Omit<CleanerOptions, 'report'>;
}

interface Topic {
  readonly info: TopicInfo;
  /** Its configs in force: its own over the broker's. */
  readonly config: TopicConfig;
  readonly logs: PartitionLog[];
}

export class Storage {
  private readonly byName = new Map<string, Topic>();
  private changes: Promise<unknown> = Promise.resolve();
  private nextId: bigint;
  private reservedEnd: bigint;
  private reserving: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  /** Compacts the compacted topics' partitions, when the broker runs one. */
  cleaner: LogCleaner | undefined;

  private constructor(
    readonly dataDir: string,
    private readonly options: LogOptions,
    private topicDefaults: BrokerConfig,
    private readonly report: Reporter,
    private readonly metadataFile: DurableJsonFile<Metadata>,
    private readonly producerIdsFile: DurableJsonFile<ProducerIds>,
    readonly clusterId: string,
    nextProducerId: bigint,
  ) {
    this.nextId = nextProducerId;
    this.reservedEnd = nextProducerId;
  }

  /** Opens every partition (recovering each) and reserves a block of producer ids. */
  static async open(dataDir: string, { cleaner, topicDefaults = DEFAULT_CONFIG, ...options }: StorageOptions = {}): Promise<Storage> {
    const report = resolveLogOptions(options).report;
    await makeDirectory(dataDir);
    const metadataFile = new DurableJsonFile(join(dataDir, 'metadata.json'), isMetadata);
    const producerIdsFile = new DurableJsonFile(join(dataDir, 'producer-ids.json'), isProducerIds);
    const dirs = await partitionNamedDirectories(dataDir);
    let metadata = await metadataFile.read();
    if (metadata === undefined) {
      for (const dir of dirs) {
        if ((await foreignFile(join(dataDir, dir))) === undefined) throw new Error(`${dataDir} holds partition directories but no metadata.json`);
      }
      metadata = { version: 1, clusterId: randomBytes(16).toString('base64url'), topics: [] };
      await metadataFile.write(metadata);
    }
    const ids = await producerIdsFile.read();
    const storage = new Storage(
      dataDir,
      options,
      topicDefaults,
      report,
      metadataFile,
      producerIdsFile,
      metadata.clusterId,
      BigInt(ids?.nextBlockStart ?? FIRST_PRODUCER_ID),
    );

    const owned = new Set(metadata.topics.flatMap((t) => Array.from({ length: t.partitions }, (_, p) => `${t.name}-${p}`)));
    for (const stray of dirs.filter((d) => !owned.has(d))) {
      const dir = join(dataDir, stray);
      const foreign = await foreignFile(dir);
      if (foreign !== undefined) {
        report.warn('leaving alone a directory named like a partition: it holds a file brook does not write', { dir, file: foreign });
        continue;
      }
      report.warn('removing a partition directory no topic owns', { dir });
      await rm(dir, { recursive: true, force: true });
    }

    try {
      await storage.openTopics(metadata.topics, dirs);
      await storage.reserveProducerIds();
      if (cleaner !== undefined) {
        storage.cleaner = new LogCleaner(() => storage.compactedPartitions(), { ...cleaner, report });
        storage.cleaner.start();
      }
    } catch (err) {
      // Partitions opened before the failure are closed, their timers stopped.
      await storage.close().catch(() => {});
      throw err;
    }
    return storage;
  }

  /** Opens each topic's partitions, warning about a partition directory that is gone. */
  private async openTopics(topics: readonly StoredTopic[], dirs: readonly string[]): Promise<void> {
    for (const stored of topics) {
      const info: TopicInfo = { ...stored, configs: stored.configs ?? {} };
      for (let p = 0; p < info.partitions; p++) {
        const dir = `${info.name}-${p}`;
        // Made again empty, as it must be served: said, since whatever it held is gone.
        if (!dirs.includes(dir))
          this.report.warn('a partition directory is missing: the partition starts empty, what it held is lost', { dir: join(this.dataDir, dir) });
      }
      const config = topicConfig(this.topicDefaults, info.configs);
      this.byName.set(info.name, { info, config, logs: await this.openEach(info, config, 0, info.partitions) });
    }
  }

  topics(): TopicInfo[] {
    return Array.from(this.byName.values(), (t) => t.info);
  }

  topic(name: string): TopicInfo | undefined {
    return this.byName.get(name)?.info;
  }

  /** The configs in force of the topic: its own over the broker's. */
  topicConfig(name: string): TopicConfig | undefined {
    return this.byName.get(name)?.config;
  }

  topicById(topicId: string): TopicInfo | undefined {
    return this.topics().find((t) => t.topicId === topicId);
  }

  /** Another topic whose name differs from `name` only in '.' against '_'. */
  collidingTopic(name: string): TopicInfo | undefined {
    const key = name.replaceAll('.', '_');
    return this.topics().find((t) => t.name !== name && t.name.replaceAll('.', '_') === key);
  }

  /** The partitions of the topics whose cleanup.policy has `compact`, with their cleaning configs. */
  private *compactedPartitions(): Iterable<CompactedPartition> {
    for (const [name, topic] of this.byName) {
      const config = compactionConfig(topic.config);
      if (config !== undefined) for (const [partition, log] of topic.logs.entries()) yield { log, config, topic: name, partition };
    }
  }

  /** How many partitions have failed a write and take nothing until a restart. */
  failedPartitions(): number {
    let failed = 0;
    for (const { logs } of this.byName.values()) for (const log of logs) if (log.failed) failed++;
    return failed;
  }

  /** Offsets read_committed consumers cannot read yet, below the high watermarks, over every partition. */
  unstableOffsets(): number {
    let lag = 0;
    for (const { logs } of this.byName.values()) for (const log of logs) lag += log.highWatermark - log.lastStableOffset;
    return lag;
  }

  partition(topic: string, index: number): PartitionLog | undefined {
    return this.byName.get(topic)?.logs[index];
  }

  /**
   * Creates the partitions, then records the topic with its own `configs` (checked by the
   * caller); throws TopicExistsError if the name is taken, TopicCollisionError if another collides with it.
   */
  async createTopic(name: string, partitions: number, configs: TopicConfigs = {}): Promise<TopicInfo> {
    const nameProblem = topicNameProblem(name);
    if (nameProblem !== undefined) throw new RangeError(nameProblem);
    if (!(Number.isInteger(partitions) && partitions >= 1 && partitions <= MAX_PARTITIONS)) {
      throw new RangeError(`a topic needs between 1 and ${MAX_PARTITIONS} partitions, not ${partitions}`);
    }
    return this.change(async () => {
      const existing = this.byName.get(name);
      if (existing !== undefined) throw new TopicExistsError(existing.info);
      const colliding = this.collidingTopic(name);
      if (colliding !== undefined) throw new TopicCollisionError(name, colliding);
      const info: TopicInfo = { name, topicId: randomUUID(), partitions, configs };
      const config = topicConfig(this.topicDefaults, configs);
      const logs = await this.addPartitions(info, config, 0, partitions, () => this.saveMetadata([...this.topics(), info]));
      this.byName.set(name, { info, config, logs });
      return info;
    });
  }

  /**
   * Grows the topic to `count` partitions: creates the new ones, then records the count.
   * Undefined when, by the time the change's turn comes, no topic holds the name; throws
   * InvalidPartitionsError when the topic cannot grow to `count` then (an earlier change grew it).
   */
  async createPartitions(name: string, count: number): Promise<TopicInfo | undefined> {
    return this.change(async () => {
      const topic = this.byName.get(name);
      if (topic === undefined) return undefined;
      const problem = partitionIncreaseProblem(topic.info, count);
      if (problem !== undefined) throw new InvalidPartitionsError(problem);
      const info: TopicInfo = { ...topic.info, partitions: count };
      const saved = this.topics().map((t) => (t.name === name ? info : t));
      const added = await this.addPartitions(info, topic.config, topic.info.partitions, count, () => this.saveMetadata(saved));
      this.byName.set(name, { info, config: topic.config, logs: [...topic.logs, ...added] });
      return info;
    });
  }

  /**
   * Replaces the topic's own configs (checked by the caller): stored, then applied to its
   * partitions at once. Undefined when, by the time the change's turn comes, no topic holds the
   * name; `alter` works out the new configs from those the topic has then.
   */
  async alterTopicConfigs(name: string, alter: (configs: TopicConfigs) => TopicConfigs): Promise<TopicInfo | undefined> {
    return this.change(async () => {
      const topic = this.byName.get(name);
      if (topic === undefined) return undefined;
      const info: TopicInfo = { ...topic.info, configs: alter(topic.info.configs) };
      await this.saveMetadata(this.topics().map((t) => (t.name === name ? info : t)));
      this.configureTopic({ ...topic, info });
      return info;
    });
  }

  /**
   * Forgets the topic durably, then closes and removes its partitions; answers what was deleted.
   * Undefined when, by the time the delete's turn comes, no topic holds the name (or, given
   * `topicId`, none with that id): a change queued earlier may have deleted or replaced it.
   */
  async deleteTopic(name: string, topicId?: string): Promise<TopicInfo | undefined> {
    return this.change(async () => {
      const topic = this.byName.get(name);
      if (topic === undefined || (topicId !== undefined && topic.info.topicId !== topicId)) return undefined;
      // Saved first, so a failed save leaves the topic both on disk and served.
      await this.saveMetadata(this.topics().filter((t) => t.name !== name));
      this.byName.delete(name);
      await Promise.all(topic.logs.map((l) => l.close().catch(() => {})));
      // The topic is gone once the metadata says so: files that cannot be removed now are a
      // stray directory, removed at the next start, not a failed delete.
      await Promise.all(
        topic.logs.map((_, p) =>
          rm(this.partitionDir(name, p), { recursive: true, force: true }).catch((err: Error) => {
            this.report.warn("a deleted topic's partition directory could not be removed", { dir: this.partitionDir(name, p), error: err.message });
          }),
        ),
      );
      return topic.info;
    });
  }

  /** A producer id never handed out before, across restarts too. */
  async nextProducerId(): Promise<bigint> {
    while (this.nextId >= this.reservedEnd) await this.reserveProducerIds();
    const id = this.nextId++;
    if (this.reservedEnd - this.nextId < PRODUCER_ID_BLOCK / 10n) {
      this.reserveProducerIds().catch((err: Error) => this.report.warn('reserving producer ids failed', { error: err.message }));
    }
    return id;
  }

  /** Whether `producerId` may have been handed out, by this run or an earlier one. */
  producerIdIssued(producerId: bigint): boolean {
    return producerId >= FIRST_PRODUCER_ID && producerId < this.nextId;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.cleaner?.close();
      await this.changes.catch(() => {});
      await this.reserving?.catch(() => {});
      await Promise.all([...this.byName.values()].flatMap((t) => t.logs.map((l) => l.close())));
    })();
    return this.closing;
  }

  /** Topics without their own values follow `defaults` from now on (dynamic broker configs, as Kafka's LogManager.reconfigureDefaultLogConfig). */
  setTopicDefaults(defaults: BrokerConfig): void {
    this.topicDefaults = defaults;
    for (const topic of this.byName.values()) this.configureTopic(topic);
  }

  /** Works out the topic's configs in force anew and runs its partitions with them from now on. */
  private configureTopic(topic: Topic): void {
    const config = topicConfig(this.topicDefaults, topic.info.configs);
    this.byName.set(topic.info.name, { ...topic, config });
    for (const log of topic.logs) log.configure(topicLogOptions(this.options, config));
  }

  private openPartition(topic: TopicInfo, config: TopicConfig, index: number): Promise<PartitionLog> {
    return PartitionLog.open(this.partitionDir(topic.name, index), topicLogOptions(this.options, config));
  }

  /**
   * Opens partitions `from` up to `to` of `topic` afresh, then runs `record`, which saves the
   * metadata owning them; if either fails, the partitions are closed and removed again.
   */
  private async addPartitions(topic: TopicInfo, config: TopicConfig, from: number, to: number, record: () => Promise<void>): Promise<PartitionLog[]> {
    const indexes = Array.from({ length: to - from }, (_, i) => from + i);
    const dirs = indexes.map((p) => this.partitionDir(topic.name, p));
    for (const dir of dirs) {
      const foreign = await foreignFile(dir);
      if (foreign !== undefined)
        throw new Error(`${dir} holds ${foreign}, which brook does not write: it is left alone, and the partition cannot be made there`);
    }
    const removeAll = () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    // Left by a create or delete that a crash interrupted.
    await removeAll();
    let logs: PartitionLog[] = [];
    try {
      logs = await this.openEach(topic, config, from, to);
      await record();
    } catch (err) {
      await Promise.all(logs.map((l) => l.close().catch(() => {})));
      await removeAll();
      throw err;
    }
    return logs;
  }

  /**
   * Opens partitions `from` up to `to` of `topic`. Settled, so that when one fails to open the
   * others are closed, not left open with their timers running.
   */
  private async openEach(topic: TopicInfo, config: TopicConfig, from: number, to: number): Promise<PartitionLog[]> {
    const opened = await Promise.allSettled(Array.from({ length: to - from }, (_, i) => this.openPartition(topic, config, from + i)));
    const logs = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const failed = opened.find((o) => o.status === 'rejected');
    if (failed === undefined) return logs;
    await Promise.all(logs.map((l) => l.close().catch(() => {})));
    throw failed.reason;
  }

  private partitionDir(topic: string, index: number): string {
    return join(this.dataDir, `${topic}-${index}`);
  }

  private saveMetadata(topics: readonly TopicInfo[]): Promise<void> {
    return this.metadataFile.write({ version: 1, clusterId: this.clusterId, topics });
  }

  /** Topic changes run one at a time. */
  private change<T>(task: () => Promise<T>): Promise<T> {
    if (this.closing !== undefined) return Promise.reject(new Error('storage is closed'));
    const result = this.changes.then(task);
    this.changes = result.catch(() => {});
    return result;
  }

  private reserveProducerIds(): Promise<void> {
    this.reserving ??= (async () => {
      const end = this.reservedEnd + PRODUCER_ID_BLOCK;
      await this.producerIdsFile.write({ version: 1, nextBlockStart: end.toString() });
      this.reservedEnd = end;
    })().finally(() => {
      this.reserving = undefined;
    });
    return this.reserving;
  }
}
