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

interface GroupsDocument {
  readonly version: 1;
  readonly groups: readonly FileGroup[];
}

export class GroupStore {
  /** groupId → the group's JSON. */
  private readonly encoded: Map<string, string>;
  private dirty = false;
  private writing: Promise<void> | undefined;
  /** Settles each caller waiting for a write that holds its change. */
  private waiting: { resolve: () => void; reject: (err: Error) => void }[] = [];
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly path: string,
    private loaded: readonly FileGroup[],
    private readonly onError: (err: Error) => void,
  ) {
    this.encoded = new Map(loaded.map((g) => [g.groupId, JSON.stringify(g)]));
  }

  /** The groups in `path`; a file not of brook's form stops the open, naming it. */
  static async open(path: string, onError: (err: Error) => void): Promise<GroupStore> {
    await mkdir(dirname(path), { recursive: true });
    const document = await new DurableJsonFile(path, isGroupsDocument).read();
    return new GroupStore(path, document?.groups ?? [], onError);
  }

  /** The groups as stored when opened: Stable with their members, or Empty; no timers run yet. Once only. */
  takeGroups(clock: () => number): ClassicGroup[] {
    const groups = this.loaded.map((g) => restore(g, clock));
    this.loaded = [];
    return groups;
  }

  /** Stores what the settled (Stable or Empty) group is now; resolves once it is written. */
  put(group: ClassicGroup): Promise<void> {
    this.encoded.set(group.groupId, JSON.stringify(stored(group)));
    return this.save();
  }

  remove(groupId: string): void {
    if (this.encoded.delete(groupId)) this.save().catch(() => {});
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
        await writeFileDurably(this.path, `{"version":1,"groups":[${[...this.encoded.values()].join(',')}]}\n`);
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

function isGroupsDocument(value: unknown): value is GroupsDocument {
  return isVersion1(value) && Array.isArray(value.groups) && value.groups.every(isFileGroup);
}
