/**
 * One group of the classic protocol: its members, generation, chosen protocol and state, with
 * the bookkeeping rules Kafka's ClassicGroup keeps. The rebalance itself is driven by the
 * Rebalancer; the group only holds the handles that cancel its timers.
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { CONSUMER_PROTOCOL_TYPE, subscriptionTopics } from './consumer-protocol.js';
import type { Cancel } from './scheduler.js';

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

export interface Protocol {
  readonly name: string;
  readonly metadata: Buffer;
}

export interface JoinedMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly metadata: Buffer;
}

/** A JoinGroup answer, version-independent. */
export interface JoinOutcome {
  readonly errorCode: number;
  readonly generationId: number;
  readonly protocolType: string | null;
  readonly protocolName: string | null;
  readonly leader: string;
  readonly skipAssignment: boolean;
  readonly memberId: string;
  /** Every member with its metadata for the chosen protocol; for the leader only. */
  readonly members: JoinedMember[];
}

/** A SyncGroup answer, version-independent. */
export interface SyncOutcome {
  readonly errorCode: number;
  readonly protocolType: string | null;
  readonly protocolName: string | null;
  readonly assignment: Buffer;
}

export const EMPTY_ASSIGNMENT: Buffer = Buffer.alloc(0);

export function joinError(memberId: string, errorCode: number): JoinOutcome {
  return { errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false, memberId, members: [] };
}

export function syncError(errorCode: number): SyncOutcome {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY_ASSIGNMENT };
}

export class Member {
  assignment: Buffer = EMPTY_ASSIGNMENT;
  /** Not yet through a completed join phase, so it can expire even while its JoinGroup waits. */
  isNew = false;
  joinWaiter: ((outcome: JoinOutcome) => void) | undefined;
  syncWaiter: ((outcome: SyncOutcome) => void) | undefined;
  cancelExpiry: Cancel | undefined;

  constructor(
    readonly memberId: string,
    readonly groupInstanceId: string | null,
    readonly clientId: string,
    readonly clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    public protocols: readonly Protocol[],
  ) {}

  metadataFor(protocolName: string): Buffer {
    return this.protocols.find((p) => p.name === protocolName)?.metadata ?? EMPTY_ASSIGNMENT;
  }

  /** The same protocols, in the same order, with the same metadata. */
  matches(protocols: readonly Protocol[]): boolean {
    return (
      protocols.length === this.protocols.length &&
      protocols.every((p, i) => p.name === this.protocols[i]!.name && p.metadata.equals(this.protocols[i]!.metadata))
    );
  }

  /** Answers a waiting JoinGroup; false if none waits. */
  completeJoin(outcome: JoinOutcome): boolean {
    const waiter = this.joinWaiter;
    this.joinWaiter = undefined;
    waiter?.(outcome);
    return waiter !== undefined;
  }

  /** Answers a waiting SyncGroup; false if none waits. */
  completeSync(outcome: SyncOutcome): boolean {
    const waiter = this.syncWaiter;
    this.syncWaiter = undefined;
    waiter?.(outcome);
    return waiter !== undefined;
  }
}

export class ClassicGroup {
  state: GroupState = 'Empty';
  previousState: GroupState = 'Empty';
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  /** In join order: the first is the next leader when the leader goes. */
  readonly members = new Map<string, Member>();
  /** Ids handed out with MEMBER_ID_REQUIRED and not yet used, each with its expiry. */
  readonly pendingMembers = new Map<string, Cancel>();
  /** group.instance.id → member id of static members. */
  readonly staticMembers = new Map<string, string>();
  /** Members of this generation that have not sent SyncGroup yet. */
  readonly pendingSync = new Set<string>();
  /** A member joined during the initial rebalance delay, which extends it. */
  newMemberAdded = false;
  cancelJoinPhase: Cancel | undefined;
  cancelPendingSync: Cancel | undefined;
  /**
   * When the group entered its state (ms since the epoch; Kafka's currentStateTimestamp): an
   * Empty group's offsets expire counting from it. Unknown for a group stored before it was kept.
   */
  currentStateTimestamp: number | undefined;

  constructor(
    readonly groupId: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.currentStateTimestamp = clock();
  }

  is(...states: GroupState[]): boolean {
    return states.includes(this.state);
  }

  transitionTo(state: GroupState): void {
    this.previousState = this.state;
    this.state = state;
    this.currentStateTimestamp = this.clock();
  }

  add(member: Member, protocolType: string): void {
    if (this.members.size === 0) this.protocolType = protocolType;
    this.leaderId ??= member.memberId;
    this.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
  }

  remove(memberId: string): void {
    const member = this.members.get(memberId);
    if (member === undefined) return;
    this.members.delete(memberId);
    if (member.groupInstanceId !== null) this.staticMembers.delete(member.groupInstanceId);
    if (this.leaderId === memberId) this.leaderId = this.members.keys().next().value ?? null;
    this.pendingSync.delete(memberId);
  }

  /** Puts `next` in the place of the static member `previous` (same instance id, new member id). */
  replace(previous: Member, next: Member): void {
    this.members.delete(previous.memberId);
    this.members.set(next.memberId, next);
    this.staticMembers.set(next.groupInstanceId!, next.memberId);
    if (this.leaderId === previous.memberId) this.leaderId = next.memberId;
    if (this.pendingSync.delete(previous.memberId)) this.pendingSync.add(next.memberId);
  }

  /** UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID (another member holds the instance id) or NONE. */
  validateMember(memberId: string, groupInstanceId: string | null): number {
    if (groupInstanceId !== null) {
      const holder = this.staticMembers.get(groupInstanceId);
      if (holder === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      return holder === memberId ? ErrorCode.NONE : ErrorCode.FENCED_INSTANCE_ID;
    }
    return this.members.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  hasAllMembersJoined(): boolean {
    if (this.pendingMembers.size > 0) return false;
    for (const member of this.members.values()) if (member.joinWaiter === undefined) return false;
    return true;
  }

  /** The join phase may take as long as the most patient member allows. */
  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const member of this.members.values()) max = Math.max(max, member.rebalanceTimeoutMs);
    return max;
  }

  /**
   * Kafka's check, for new and rejoining members alike: an Empty group takes any protocol type and
   * protocols; otherwise the type must be the group's and every member, a rejoining one included
   * as it was, must support one of the protocols.
   */
  supportsProtocols(protocolType: string, protocols: readonly Protocol[]): boolean {
    if (this.is('Empty')) return protocolType !== '' && protocols.length > 0;
    const members = [...this.members.values()];
    return protocolType === this.protocolType && protocols.some((p) => members.every((m) => m.protocols.some((q) => q.name === p.name)));
  }

  /**
   * Kafka's choice: among the protocols every member supports, each member votes for the first
   * in its own order and the most votes win; a tie goes to the one the leader lists first.
   */
  selectProtocol(): string {
    const members = [...this.members.values()];
    const candidates = members[0]!.protocols.map((p) => p.name).filter((name) => members.every((m) => m.protocols.some((p) => p.name === name)));
    const votes = new Map<string, number>();
    for (const member of members) {
      const vote = member.protocols.find((p) => candidates.includes(p.name))!.name;
      votes.set(vote, (votes.get(vote) ?? 0) + 1);
    }
    const leaderOrder = (this.members.get(this.leaderId!) ?? members[0]!).protocols.map((p) => p.name).filter((name) => votes.has(name));
    let best = leaderOrder[0]!;
    for (const name of leaderOrder) if (votes.get(name)! > votes.get(best)!) best = name;
    return best;
  }

  /** Keeps a leader that rejoined, else picks a member that did; false if none did. */
  electJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    if (this.members.get(this.leaderId)?.joinWaiter !== undefined) return true;
    for (const member of this.members.values()) {
      if (member.joinWaiter !== undefined) {
        this.leaderId = member.memberId;
        return true;
      }
    }
    return false;
  }

  initNextGeneration(): void {
    this.generationId++;
    this.pendingSync.clear();
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.transitionTo('CompletingRebalance');
    } else {
      this.protocolName = null;
      this.transitionTo('Empty');
    }
  }

  /**
   * Kafka's reading of what a consumer group's members subscribe to, from their metadata for the
   * chosen protocol: undefined (which callers take as "any topic") when the group is not of the
   * consumer protocol type, has no protocol chosen yet, or a member's metadata does not parse.
   */
  subscribedTopics(): ReadonlySet<string> | undefined {
    if (this.protocolType !== CONSUMER_PROTOCOL_TYPE) return undefined;
    const topics = new Set<string>();
    if (this.members.size === 0) return topics;
    if (this.protocolName === null) return undefined;
    for (const member of this.members.values()) {
      const subscribed = subscriptionTopics(member.metadataFor(this.protocolName));
      if (subscribed === undefined) return undefined;
      for (const topic of subscribed) topics.add(topic);
    }
    return topics;
  }

  /** What the leader needs to assign: every member with its metadata for the chosen protocol. */
  membersForLeader(): JoinedMember[] {
    return [...this.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadataFor(this.protocolName!) }));
  }

  cancelTimers(): void {
    this.cancelJoinPhase?.();
    this.cancelPendingSync?.();
    for (const cancel of this.pendingMembers.values()) cancel();
    for (const member of this.members.values()) member.cancelExpiry?.();
  }

  joinOutcome(member: Member, skipAssignment = false): JoinOutcome {
    return {
      errorCode: ErrorCode.NONE,
      generationId: this.generationId,
      protocolType: this.protocolType,
      protocolName: this.protocolName,
      leader: this.leaderId ?? '',
      skipAssignment,
      memberId: member.memberId,
      members: member.memberId === this.leaderId ? this.membersForLeader() : [],
    };
  }
}
