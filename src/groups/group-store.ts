/**
 * Each group's membership as its last completed rebalance left it (Kafka's group metadata
 * records): generation, protocol, leader, each member with its protocols and assignment, and
 * when the group entered its state, in one JSON file in the data directory. After a restart the
 * group comes back as it was, so members that heartbeat go on without a rebalance, and an Empty
 * group's offsets expire counting from when it became Empty.
 *
 * Each group is encoded when it changes and kept so; a write joins the encoded groups, so a
 * change costs its own group's encoding, not every group's. Changes made while a write is under
 * way go out together in the next one. A failed write is tried again with the next change, after
 * RETRY_MS without one, and once more at close. A file that does not parse stops the start, as brook's other files do.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DurableJsonFile, isJsonObject, isVersion1, writeFileDurably } from '../files/durable-file.js';
import { ClassicGroup, Member } from './classic-group.js';
import { ConsumerGroup, type ConsumerMember, type MemberState } from './consumer-group.js';
import type { TopicPartitions } from './assignors.js';

export const GROUPS_FILE = 'groups.json';
const RETRY_MS = 5000;

/** A member as stored: bytes in base64. */
interface FileMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly rebalanceTimeoutMs: number;
  readonly sessionTimeoutMs: number;
  /**
   * Every protocol the member offered, with its metadata: Kafka's `GroupMetadataManager.groupMetadataValue` keeps only the chosen one's, so
   * a member that rejoins offering several starts a rebalance there; here it does not.
   */
  readonly protocols: readonly { readonly name: string; readonly metadata: string }[];
  readonly assignment: string;
}

interface FileGroup {
  readonly groupId: string;
  readonly protocolType: string | null;
  readonly generationId: number;
  readonly protocolName: string | null;
  readonly leaderId: string | null;
  /** In join order. */
  readonly members: readonly FileMember[];
  /** When it entered its state; absent in files written before brook kept it. */
  readonly currentStateTimestamp?: number;
}

/** Topic id → partitions, as pairs. */
type FilePartitions = readonly (readonly [string, readonly number[]])[];

/** A consumer-protocol member: its subscription, epochs, what it owns and its target. */
interface FileConsumerMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly rebalanceTimeoutMs: number;
  readonly subscribedTopicNames: readonly string[];
  readonly subscribedTopicRegex: string | null;
  readonly serverAssignor: string | null;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: MemberState;
  readonly assigned: FilePartitions;
  readonly pendingRevocation: FilePartitions;
  readonly target: FilePartitions;
  /** Topic id → [partition, the epoch the member was given it at] pairs. */
  readonly assignmentEpochs: readonly (readonly [string, readonly (readonly [number, number])[]])[];
  /** A classic member's session and protocols (metadata in base64); absent for a consumer-protocol member and in files written before brook kept them. */
  readonly classic?: { readonly sessionTimeoutMs: number; readonly supportedProtocols: readonly { readonly name: string; readonly metadata: string }[] };
}

/** A consumer-protocol group (Kafka keeps these as its ConsumerGroup* records). */
interface FileConsumerGroup {
  readonly groupId: string;
  readonly groupEpoch: number;
  readonly assignmentEpoch: number;
  readonly subscribedPartitions: readonly (readonly [string, number])[];
  readonly members: readonly FileConsumerMember[];
}

interface GroupsDocument {
  readonly version: 1;
  readonly groups: readonly FileGroup[];
  /** Absent in files written before brook served consumer groups. */
  readonly consumerGroups?: readonly FileConsumerGroup[];
}

export class GroupStore {
  /** groupId → the group's JSON. */
  private readonly encoded: Map<string, string>;
  private readonly encodedConsumer: Map<string, string>;
  private dirty = false;
  private writing: Promise<void> | undefined;
  /** Settles each caller waiting for a write that holds its change. */
  private waiting: { resolve: () => void; reject: (err: Error) => void }[] = [];
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly path: string,
    private loaded: readonly FileGroup[],
    private loadedConsumer: readonly FileConsumerGroup[],
    private readonly onError: (err: Error) => void,
  ) {
    this.encoded = new Map(loaded.map((g) => [g.groupId, JSON.stringify(g)]));
    this.encodedConsumer = new Map(loadedConsumer.map((g) => [g.groupId, JSON.stringify(g)]));
  }

  /** The groups in `path`; a file not of brook's form stops the open, naming it. */
  static async open(path: string, onError: (err: Error) => void): Promise<GroupStore> {
    await mkdir(dirname(path), { recursive: true });
    const document = await new DurableJsonFile(path, isGroupsDocument).read();
    return new GroupStore(path, document?.groups ?? [], document?.consumerGroups ?? [], onError);
  }

  /** The groups as stored when opened: Stable with their members, or Empty; no timers run yet. Once only. */
  takeGroups(clock: () => number): ClassicGroup[] {
    const groups = this.loaded.map((g) => restore(g, clock));
    this.loaded = [];
    return groups;
  }

  /** The consumer groups as stored when opened, their members owning what they owned; no timers run yet. Once only. */
  takeConsumerGroups(): ConsumerGroup[] {
    const groups = this.loadedConsumer.map(restoreConsumer);
    this.loadedConsumer = [];
    return groups;
  }

  /** Stores what the consumer group is now; resolves once it is written. */
  putConsumer(group: ConsumerGroup): Promise<void> {
    // One group id is one kind of group: a classic group converted to this one goes in the same write.
    this.encoded.delete(group.groupId);
    this.encodedConsumer.set(group.groupId, JSON.stringify(storedConsumer(group)));
    return this.save();
  }

  /** Stores what the settled (Stable or Empty) group is now; resolves once it is written. */
  put(group: ClassicGroup): Promise<void> {
    this.encodedConsumer.delete(group.groupId);
    this.encoded.set(group.groupId, JSON.stringify(stored(group)));
    return this.save();
  }

  remove(groupId: string): void {
    const classic = this.encoded.delete(groupId);
    if (this.encodedConsumer.delete(groupId) || classic) this.save().catch(() => {});
  }

  /** Writes what is not written yet, trying once more if the last write failed, and stops retrying. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    if (this.dirty) this.writing ??= this.drain();
    while (this.writing !== undefined) await this.writing;
  }

  private save(): Promise<void> {
    this.dirty = true;
    const written = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    // A change waiting on a retry is tried now: its caller may be waiting to answer a client.
    clearTimeout(this.retry);
    this.retry = undefined;
    this.writing ??= this.drain();
    return written;
  }

  private async drain(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      const waiting = this.waiting;
      this.waiting = [];
      try {
        const consumer = [...this.encodedConsumer.values()].join(',');
        await writeFileDurably(this.path, `{"version":1,"groups":[${[...this.encoded.values()].join(',')}],"consumerGroups":[${consumer}]}\n`);
        for (const w of waiting) w.resolve();
      } catch (err) {
        this.onError(err as Error);
        for (const w of waiting) w.reject(err as Error);
        // What failed is still to be written: the next write, now or after a pause, holds it.
        this.dirty = true;
        if (this.waiting.length === 0) {
          if (!this.closed) this.retry = setTimeout(() => this.retryWrite(), RETRY_MS).unref();
          break;
        }
      }
    }
    this.writing = undefined;
  }

  private retryWrite(): void {
    this.retry = undefined;
    this.writing ??= this.drain();
  }
}

function stored(group: ClassicGroup): FileGroup {
  return {
    groupId: group.groupId,
    protocolType: group.protocolType,
    generationId: group.generationId,
    protocolName: group.protocolName,
    leaderId: group.leaderId,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      sessionTimeoutMs: m.sessionTimeoutMs,
      protocols: m.protocols.map((p) => ({ name: p.name, metadata: p.metadata.toString('base64') })),
      assignment: m.assignment.toString('base64'),
    })),
    currentStateTimestamp: group.currentStateTimestamp,
  };
}

function restore(g: FileGroup, clock: () => number): ClassicGroup {
  const group = new ClassicGroup(g.groupId, clock);
  for (const m of g.members) {
    const protocols = m.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata, 'base64') }));
    const member = new Member(m.memberId, m.groupInstanceId, m.clientId, m.clientHost, m.rebalanceTimeoutMs, m.sessionTimeoutMs, protocols);
    member.assignment = Buffer.from(m.assignment, 'base64');
    group.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) group.staticMembers.set(member.groupInstanceId, member.memberId);
  }
  group.generationId = g.generationId;
  group.protocolType = g.protocolType;
  group.protocolName = g.protocolName;
  group.leaderId = g.leaderId;
  group.state = group.previousState = group.members.size > 0 ? 'Stable' : 'Empty';
  group.currentStateTimestamp = g.currentStateTimestamp;
  return group;
}

const toFile = (partitions: TopicPartitions): FilePartitions => [...partitions].map(([topic, set]) => [topic, [...set]] as const);
const fromFile = (partitions: FilePartitions): TopicPartitions => new Map(partitions.map(([topic, list]) => [topic, new Set(list)]));

function storedConsumer(group: ConsumerGroup): FileConsumerGroup {
  return {
    groupId: group.groupId,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    subscribedPartitions: [...group.subscribedPartitions],
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      subscribedTopicNames: m.subscribedTopicNames,
      subscribedTopicRegex: m.subscribedTopicRegex,
      serverAssignor: m.serverAssignor,
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      state: m.state,
      assigned: toFile(m.assigned),
      pendingRevocation: toFile(m.pendingRevocation),
      target: toFile(group.target.get(m.memberId) ?? new Map()),
      assignmentEpochs: [...m.assignmentEpochs].map(([topic, epochs]) => [topic, [...epochs]] as const),
      ...(m.classic === null
        ? {}
        : {
            classic: {
              sessionTimeoutMs: m.classic.sessionTimeoutMs,
              supportedProtocols: m.classic.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata.toString('base64') })),
            },
          }),
    })),
  };
}

function restoreConsumer(g: FileConsumerGroup): ConsumerGroup {
  const group = new ConsumerGroup(g.groupId);
  group.groupEpoch = g.groupEpoch;
  group.assignmentEpoch = g.assignmentEpoch;
  group.subscribedPartitions = new Map(g.subscribedPartitions);
  for (const m of g.members) {
    const { target: _target, classic, ...fields } = m;
    const member: ConsumerMember = {
      ...fields,
      classic:
        classic === undefined
          ? null
          : {
              sessionTimeoutMs: classic.sessionTimeoutMs,
              supportedProtocols: classic.supportedProtocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata, 'base64') })),
            },
      subscribedTopicNames: [...m.subscribedTopicNames],
      assigned: fromFile(m.assigned),
      pendingRevocation: fromFile(m.pendingRevocation),
      assignmentEpochs: new Map(m.assignmentEpochs.map(([topic, epochs]) => [topic, new Map(epochs)])),
    };
    group.restoreMember(member);
    group.target.set(m.memberId, fromFile(m.target));
  }
  return group;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isStringOrNull = (v: unknown): boolean => v === null || isString(v);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

function isFileMember(m: unknown): boolean {
  return (
    isJsonObject(m) &&
    [m.memberId, m.clientId, m.clientHost, m.assignment].every(isString) &&
    isStringOrNull(m.groupInstanceId) &&
    isCount(m.rebalanceTimeoutMs) &&
    isCount(m.sessionTimeoutMs) &&
    Array.isArray(m.protocols) &&
    m.protocols.every((p: unknown) => isJsonObject(p) && isString(p.name) && isString(p.metadata))
  );
}

/** A group as stored, its leader one of its members (or none, when it has none). */
function isFileGroup(g: unknown): boolean {
  if (!isJsonObject(g) || !isString(g.groupId) || !isStringOrNull(g.protocolType) || !isCount(g.generationId) || !isStringOrNull(g.protocolName)) return false;
  if (g.currentStateTimestamp !== undefined && !isCount(g.currentStateTimestamp)) return false;
  if (!Array.isArray(g.members) || !g.members.every(isFileMember)) return false;
  const members = g.members as FileMember[];
  return members.length === 0 ? g.leaderId === null : members.some((m) => m.memberId === g.leaderId) && g.protocolName !== null;
}

const isEpoch = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= -2;
const isFilePartitions = (v: unknown): boolean =>
  Array.isArray(v) && v.every((e) => Array.isArray(e) && e.length === 2 && isString(e[0]) && Array.isArray(e[1]) && (e[1] as unknown[]).every(isCount));

function isFileConsumerMember(m: unknown): boolean {
  return (
    isJsonObject(m) &&
    [m.memberId, m.clientId, m.clientHost].every(isString) &&
    [m.instanceId, m.rackId, m.subscribedTopicRegex, m.serverAssignor].every(isStringOrNull) &&
    isCount(m.rebalanceTimeoutMs) &&
    Array.isArray(m.subscribedTopicNames) &&
    m.subscribedTopicNames.every(isString) &&
    isEpoch(m.memberEpoch) &&
    isEpoch(m.previousMemberEpoch) &&
    ['stable', 'unrevoked_partitions', 'unreleased_partitions'].includes(m.state as string) &&
    [m.assigned, m.pendingRevocation, m.target].every(isFilePartitions) &&
    Array.isArray(m.assignmentEpochs) &&
    m.assignmentEpochs.every(
      (e: unknown) =>
        Array.isArray(e) &&
        e.length === 2 &&
        isString(e[0]) &&
        Array.isArray(e[1]) &&
        (e[1] as unknown[]).every((pe) => Array.isArray(pe) && pe.length === 2 && isCount(pe[0]) && isCount(pe[1])),
    ) &&
    (m.classic === undefined || isFileClassic(m.classic))
  );
}

function isFileClassic(c: unknown): boolean {
  return (
    isJsonObject(c) &&
    isCount(c.sessionTimeoutMs) &&
    Array.isArray(c.supportedProtocols) &&
    c.supportedProtocols.length > 0 &&
    c.supportedProtocols.every((p: unknown) => isJsonObject(p) && isString(p.name) && isString(p.metadata))
  );
}

function isFileConsumerGroup(g: unknown): boolean {
  return (
    isJsonObject(g) &&
    isString(g.groupId) &&
    isCount(g.groupEpoch) &&
    isCount(g.assignmentEpoch) &&
    Array.isArray(g.subscribedPartitions) &&
    g.subscribedPartitions.every((e: unknown) => Array.isArray(e) && e.length === 2 && isString(e[0]) && isCount(e[1])) &&
    Array.isArray(g.members) &&
    g.members.every(isFileConsumerMember)
  );
}

function isGroupsDocument(value: unknown): value is GroupsDocument {
  if (!isVersion1(value) || !Array.isArray(value.groups) || !value.groups.every(isFileGroup)) return false;
  return value.consumerGroups === undefined || (Array.isArray(value.consumerGroups) && value.consumerGroups.every(isFileConsumerGroup));
}
