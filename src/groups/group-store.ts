/**
 * Each group's membership as its last completed rebalance left it (Kafka's group metadata
 * records): generation, protocol, leader, and each member with its subscriptions and assignment,
 * in one JSON file in the data directory. After a restart the group comes back as it was, so
 * members that heartbeat go on without a rebalance.
 *
 * A change is written in the background; changes made while a write is under way go out
 * together in the next one. A lost write only costs a rebalance: the members of a newer
 * generation than the one stored are told to rejoin.
 */
import { DurableJsonFile, isJsonObject, isVersion1 } from '../log/durable-file.js';

export const GROUPS_FILE = 'groups.json';

export interface StoredMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly rebalanceTimeoutMs: number;
  readonly sessionTimeoutMs: number;
  readonly protocols: readonly { readonly name: string; readonly metadata: Buffer }[];
  readonly assignment: Buffer;
}

export interface StoredGroup {
  readonly groupId: string;
  readonly protocolType: string | null;
  readonly generationId: number;
  readonly protocolName: string | null;
  readonly leaderId: string | null;
  /** In join order. */
  readonly members: readonly StoredMember[];
}

/** The file's form: bytes in base64. */
interface GroupsDocument {
  readonly version: 1;
  readonly groups: readonly FileGroup[];
}

type FileMember = Omit<StoredMember, 'protocols' | 'assignment'> & { readonly protocols: readonly { readonly name: string; readonly metadata: string }[]; readonly assignment: string };
type FileGroup = Omit<StoredGroup, 'members'> & { readonly members: readonly FileMember[] };

export class GroupStore {
  private readonly stored: Map<string, StoredGroup>;
  private dirty = false;
  private writing: Promise<void> | undefined;

  private constructor(
    private readonly file: DurableJsonFile<GroupsDocument>,
    stored: readonly StoredGroup[],
    private readonly onError: (err: Error) => void,
  ) {
    this.stored = new Map(stored.map((g) => [g.groupId, g]));
  }

  /** The groups in `path`; a file not of brook's form stops the open, naming it. */
  static async open(path: string, onError: (err: Error) => void): Promise<GroupStore> {
    const file = new DurableJsonFile(path, isGroupsDocument);
    const document = await file.read();
    return new GroupStore(file, (document?.groups ?? []).map(fromFile), onError);
  }

  groups(): Iterable<StoredGroup> {
    return this.stored.values();
  }

  put(group: StoredGroup): void {
    this.stored.set(group.groupId, group);
    this.save();
  }

  remove(groupId: string): void {
    if (this.stored.delete(groupId)) this.save();
  }

  /** Resolves once what was changed so far is written (or failed). */
  async flushed(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  private save(): void {
    this.dirty = true;
    this.writing ??= this.drain();
  }

  private async drain(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      try {
        await this.file.write({ version: 1, groups: [...this.stored.values()].map(toFile) });
      } catch (err) {
        this.onError(err as Error);
      }
    }
    this.writing = undefined;
  }
}

function toFile(group: StoredGroup): FileGroup {
  return {
    ...group,
    members: group.members.map((m) => ({
      ...m,
      protocols: m.protocols.map((p) => ({ name: p.name, metadata: p.metadata.toString('base64') })),
      assignment: m.assignment.toString('base64'),
    })),
  };
}

function fromFile(group: FileGroup): StoredGroup {
  return {
    ...group,
    members: group.members.map((m) => ({
      ...m,
      protocols: m.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata, 'base64') })),
      assignment: Buffer.from(m.assignment, 'base64'),
    })),
  };
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isStringOrNull = (v: unknown): boolean => v === null || isString(v);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

function isFileMember(m: unknown): boolean {
  return (
    isJsonObject(m) &&
    isString(m.memberId) &&
    isStringOrNull(m.groupInstanceId) &&
    isString(m.clientId) &&
    isString(m.clientHost) &&
    isCount(m.rebalanceTimeoutMs) &&
    isCount(m.sessionTimeoutMs) &&
    isString(m.assignment) &&
    Array.isArray(m.protocols) &&
    m.protocols.every((p: unknown) => isJsonObject(p) && isString(p.name) && isString(p.metadata))
  );
}

function isFileGroup(g: unknown): boolean {
  return (
    isJsonObject(g) &&
    isString(g.groupId) &&
    isStringOrNull(g.protocolType) &&
    isCount(g.generationId) &&
    isStringOrNull(g.protocolName) &&
    isStringOrNull(g.leaderId) &&
    Array.isArray(g.members) &&
    g.members.every(isFileMember)
  );
}

function isGroupsDocument(value: unknown): value is GroupsDocument {
  return isVersion1(value) && Array.isArray(value.groups) && value.groups.every(isFileGroup);
}
