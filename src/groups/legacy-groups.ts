/**
 * `groups.json`, where an earlier brook kept each group's membership: read once, when a data
 * directory written then is first opened, to move its groups into `__consumer_offsets`
 * (groups-migration.ts). A file that does not parse stops the start, as brook's other files do.
 */
import { DurableJsonFile, isJsonObject, isVersion1 } from '../files/durable-file.js';
import type { ClassicGroup } from './classic-group.js';
import { restoredGroup } from './group-metadata-records.js';
import type { ConsumerGroup, MemberState } from './consumer-group.js';
import { restoredConsumerGroup } from './consumer-group-records.js';
import type { TopicPartitions } from './assignors.js';

export const LEGACY_GROUPS_FILE = 'groups.json';

/** A member as stored: bytes in base64. */
interface FileMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly rebalanceTimeoutMs: number;
  readonly sessionTimeoutMs: number;
  /** Every protocol the member offered, with its metadata. */
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
  /** A classic member's session and protocols (metadata in base64); absent for a consumer-protocol member. */
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

/** The groups `path` holds, as they were stored; undefined if there is no file. */
export async function readLegacyGroups(path: string, clock: () => number): Promise<{ classic: ClassicGroup[]; consumer: ConsumerGroup[] } | undefined> {
  const document = await new DurableJsonFile(path, isGroupsDocument).read();
  if (document === undefined) return undefined;
  return { classic: document.groups.map((g) => restore(g, clock)), consumer: (document.consumerGroups ?? []).map(restoreConsumer) };
}

function restore(g: FileGroup, clock: () => number): ClassicGroup {
  const members = g.members.map((m) => ({
    ...m,
    protocols: m.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata, 'base64') })),
    assignment: Buffer.from(m.assignment, 'base64'),
  }));
  return restoredGroup({ ...g, members, currentStateTimestamp: g.currentStateTimestamp }, clock);
}

const fromFile = (partitions: FilePartitions): TopicPartitions => new Map(partitions.map(([topic, list]) => [topic, new Set(list)]));

function restoreConsumer(g: FileConsumerGroup): ConsumerGroup {
  const members = g.members.map(({ target, classic, ...fields }) => ({
    member: {
      ...fields,
      classic:
        classic === undefined
          ? null
          : {
              sessionTimeoutMs: classic.sessionTimeoutMs,
              supportedProtocols: classic.supportedProtocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata, 'base64') })),
            },
      subscribedTopicNames: [...fields.subscribedTopicNames],
      assigned: fromFile(fields.assigned),
      pendingRevocation: fromFile(fields.pendingRevocation),
      assignmentEpochs: new Map(fields.assignmentEpochs.map(([topic, epochs]) => [topic, new Map(epochs)])),
    },
    target: fromFile(target),
  }));
  return restoredConsumerGroup(g.groupId, g.groupEpoch, g.assignmentEpoch, new Map(g.subscribedPartitions), members);
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

function isFileClassic(c: unknown): boolean {
  return (
    isJsonObject(c) &&
    isCount(c.sessionTimeoutMs) &&
    Array.isArray(c.supportedProtocols) &&
    c.supportedProtocols.length > 0 &&
    c.supportedProtocols.every((p: unknown) => isJsonObject(p) && isString(p.name) && isString(p.metadata))
  );
}

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
