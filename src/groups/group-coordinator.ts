/**
 * The coordinator of every group on this broker, following Kafka's classic group protocol:
 * members join (a JoinGroup is answered when the join phase completes), the leader assigns,
 * SyncGroup hands each member its share, heartbeats keep sessions alive, and a join, a leave
 * or an expired session starts the next rebalance. Committed offsets go through here so that
 * commits are checked against the member and generation. Kafka's names are kept for the steps.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ErrorCode } from '../protocol/error-codes.js';
import {
  ClassicGroup,
  EMPTY_ASSIGNMENT,
  joinError,
  Member,
  syncError,
  type GroupState,
  type JoinOutcome,
  type Protocol,
  type SyncOutcome,
} from './classic-group.js';
import { OFFSETS_FILE, OffsetStore, type GroupOffsets, type PartitionOffset } from './offset-store.js';
import { timerScheduler, type Scheduler } from './scheduler.js';

export interface CoordinatorLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface CoordinatorOptions {
  readonly scheduler: Scheduler;
  /**
   * group.initial.rebalance.delay.ms: how long the first join of an empty group waits for more
   * members. Kafka's default is 3000; a single-node broker used by tests and local development
   * is better served by a short one.
   */
  readonly initialRebalanceDelayMs: number;
  /** group.min.session.timeout.ms and group.max.session.timeout.ms */
  readonly minSessionTimeoutMs: number;
  readonly maxSessionTimeoutMs: number;
  /** group.classic.new.member.join.timeout.ms: a new member's JoinGroup is given up after this. */
  readonly newMemberJoinTimeoutMs: number;
  readonly log: CoordinatorLog;
}

export const DEFAULT_COORDINATOR_OPTIONS: Omit<CoordinatorOptions, 'log'> = {
  scheduler: timerScheduler,
  initialRebalanceDelayMs: 100,
  minSessionTimeoutMs: 6000,
  maxSessionTimeoutMs: 1_800_000,
  newMemberJoinTimeoutMs: 300_000,
};

export interface JoinRequest {
  readonly groupId: string;
  /** '' on a member's first join. */
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly protocolType: string;
  readonly protocols: readonly Protocol[];
  readonly sessionTimeoutMs: number;
  readonly rebalanceTimeoutMs: number;
  readonly clientId: string;
  readonly clientHost: string;
  /** JoinGroup v4+: a dynamic member's first join only gets its member id (MEMBER_ID_REQUIRED). */
  readonly requireKnownMemberId: boolean;
}

export interface MemberRequest {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

export interface SyncRequest extends MemberRequest {
  readonly protocolType: string | null;
  readonly protocolName: string | null;
  readonly assignments: readonly { readonly memberId: string; readonly assignment: Buffer }[];
}

export interface MemberIdentity {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

export interface LeaveOutcome {
  readonly errorCode: number;
  readonly members: (MemberIdentity & { readonly errorCode: number })[];
}

export interface CommitRequest extends MemberRequest {
  readonly offsets: readonly PartitionOffset[];
  /** OffsetCommit v9+ reports an unknown group as GROUP_ID_NOT_FOUND. */
  readonly apiVersion: number;
}

export interface GroupListing {
  readonly groupId: string;
  readonly protocolType: string;
  readonly state: GroupState;
}

export interface GroupDescription extends GroupListing {
  readonly protocolData: string;
  readonly members: {
    readonly memberId: string;
    readonly groupInstanceId: string | null;
    readonly clientId: string;
    readonly clientHost: string;
    readonly metadata: Buffer;
    readonly assignment: Buffer;
  }[];
}

export class GroupCoordinator {
  /** Groups with members or member ids handed out; a group known only by its offsets is Empty. */
  private readonly groups = new Map<string, ClassicGroup>();
  private closed = false;

  constructor(
    private readonly offsetStore: OffsetStore,
    private readonly options: CoordinatorOptions,
  ) {}

  static async open(dataDir: string, options: Partial<CoordinatorOptions> & Pick<CoordinatorOptions, 'log'>): Promise<GroupCoordinator> {
    const store = await OffsetStore.open(join(dataDir, OFFSETS_FILE));
    return new GroupCoordinator(store, { ...DEFAULT_COORDINATOR_OPTIONS, ...options });
  }

  join(request: JoinRequest): Promise<JoinOutcome> {
    const { groupId, memberId } = request;
    if (this.closed) return Promise.resolve(joinError(memberId, ErrorCode.NOT_COORDINATOR));
    if (groupId === '') return Promise.resolve(joinError(memberId, ErrorCode.INVALID_GROUP_ID));
    if (request.sessionTimeoutMs < this.options.minSessionTimeoutMs || request.sessionTimeoutMs > this.options.maxSessionTimeoutMs) {
      return Promise.resolve(joinError(memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
    }
    let group = this.groups.get(groupId);
    if (group === undefined) {
      if (memberId !== '') return Promise.resolve(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      group = new ClassicGroup(groupId);
      this.groups.set(groupId, group);
    }
    const joining = group;
    return new Promise((respond) => {
      if (memberId === '') this.joinNewMember(joining, request, respond);
      else this.joinExistingMember(joining, request, respond);
      this.dropIfUnused(joining);
    });
  }

  sync(request: SyncRequest): Promise<SyncOutcome> {
    const found = this.findMember(request);
    if (typeof found === 'number') return Promise.resolve(syncError(found));
    const { group, member } = found;
    const inconsistent = (asked: string | null, chosen: string | null) => asked !== null && chosen !== null && asked !== chosen;
    if (inconsistent(request.protocolType, group.protocolType) || inconsistent(request.protocolName, group.protocolName)) {
      return Promise.resolve(syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    switch (group.state) {
      case 'PreparingRebalance':
        return Promise.resolve(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      case 'Stable':
        this.syncReceived(group, member.memberId);
        return Promise.resolve({ errorCode: ErrorCode.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment });
      case 'CompletingRebalance':
        return new Promise((respond) => {
          member.completeSync(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
          member.syncWaiter = respond;
          this.syncReceived(group, member.memberId);
          if (member.memberId !== group.leaderId) return;
          const assigned = new Map(request.assignments.map((a) => [a.memberId, a.assignment]));
          for (const m of group.members.values()) m.assignment = assigned.get(m.memberId) ?? EMPTY_ASSIGNMENT;
          this.propagateAssignment(group, ErrorCode.NONE);
          group.transitionTo('Stable');
        });
      default:
        return Promise.resolve(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }

  heartbeat(request: MemberRequest): number {
    const found = this.findMember(request);
    if (typeof found === 'number') return found;
    const { group, member } = found;
    this.scheduleExpiry(group, member, member.sessionTimeoutMs);
    return group.is('PreparingRebalance') ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
  }

  leave(groupId: string, identities: readonly MemberIdentity[]): LeaveOutcome {
    if (this.closed) return { errorCode: ErrorCode.NOT_COORDINATOR, members: [] };
    if (groupId === '') return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    const group = this.groups.get(groupId);
    const members = identities.map((identity) => ({ ...identity, errorCode: group === undefined ? ErrorCode.UNKNOWN_MEMBER_ID : this.removeLeaving(group, identity) }));
    if (group !== undefined && members.some((m) => m.errorCode === ErrorCode.NONE)) {
      this.log.info({ group: groupId, members: members.filter((m) => m.errorCode === ErrorCode.NONE).map((m) => m.memberId) }, 'members left group');
      this.afterMemberRemoved(group);
    }
    return { errorCode: ErrorCode.NONE, members };
  }

  async commitOffsets(request: CommitRequest): Promise<number> {
    const error = this.commitError(request);
    if (error !== ErrorCode.NONE) return error;
    try {
      await this.offsetStore.commit(request.groupId, request.offsets);
      return ErrorCode.NONE;
    } catch (err) {
      this.log.error({ group: request.groupId, err }, 'offset commit not stored');
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    }
  }

  committedOffsets(groupId: string): GroupOffsets | undefined {
    return this.offsetStore.offsets(groupId);
  }

  list(): GroupListing[] {
    const listings = [...this.groups.values()].map((g) => ({ groupId: g.groupId, protocolType: g.protocolType ?? '', state: g.state }));
    for (const groupId of this.offsetStore.groupIds()) {
      if (!this.groups.has(groupId)) listings.push({ groupId, protocolType: '', state: 'Empty' });
    }
    return listings;
  }

  describe(groupId: string): GroupDescription {
    const group = this.groups.get(groupId);
    if (group === undefined) {
      const state = this.offsetStore.has(groupId) ? 'Empty' : 'Dead';
      return { groupId, protocolType: '', state, protocolData: '', members: [] };
    }
    // Like Kafka, metadata and assignments are shown only while they are settled.
    const stable = group.is('Stable');
    return {
      groupId,
      protocolType: group.protocolType ?? '',
      state: group.state,
      protocolData: stable ? group.protocolName! : '',
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        metadata: stable ? m.metadataFor(group.protocolName!) : EMPTY_ASSIGNMENT,
        assignment: stable ? m.assignment : EMPTY_ASSIGNMENT,
      })),
    };
  }

  /** Deletes an Empty group and its committed offsets. */
  async delete(groupId: string): Promise<number> {
    if (this.closed) return ErrorCode.NOT_COORDINATOR;
    const group = this.groups.get(groupId);
    if (group !== undefined && !group.is('Empty')) return ErrorCode.NON_EMPTY_GROUP;
    if (group === undefined && !this.offsetStore.has(groupId)) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (group !== undefined) this.discard(group);
    if (!this.offsetStore.has(groupId)) return ErrorCode.NONE;
    try {
      await this.offsetStore.deleteGroup(groupId);
      this.log.info({ group: groupId }, 'group deleted');
      return ErrorCode.NONE;
    } catch (err) {
      this.log.error({ group: groupId, err }, 'group deletion not stored');
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    }
  }

  /** Answers every waiting JoinGroup and SyncGroup, stops the timers, and finishes writing offsets. */
  async close(): Promise<void> {
    this.closed = true;
    for (const group of this.groups.values()) {
      for (const member of group.members.values()) {
        member.completeJoin(joinError(member.memberId, ErrorCode.NOT_COORDINATOR));
        member.completeSync(syncError(ErrorCode.NOT_COORDINATOR));
      }
      this.discard(group);
    }
    await this.offsetStore.close();
  }

  private get log(): CoordinatorLog {
    return this.options.log;
  }

  // ---- joining ----

  private joinNewMember(group: ClassicGroup, request: JoinRequest, respond: (outcome: JoinOutcome) => void): void {
    if (!group.supportsProtocols(request.protocolType, request.protocols)) return respond(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    const memberId = `${request.groupInstanceId ?? request.clientId}-${randomUUID()}`;
    if (request.groupInstanceId !== null) {
      const previous = group.staticMembers.get(request.groupInstanceId);
      if (previous !== undefined) return this.replaceStaticMember(group, group.members.get(previous)!, memberId, request, respond);
    } else if (request.requireKnownMemberId) {
      group.pendingMembers.set(memberId, this.options.scheduler.schedule(request.sessionTimeoutMs, () => this.expirePendingMember(group, memberId)));
      return respond(joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED));
    }
    this.addMemberAndRebalance(group, memberId, request, respond);
  }

  private joinExistingMember(group: ClassicGroup, request: JoinRequest, respond: (outcome: JoinOutcome) => void): void {
    const { memberId } = request;
    if (!group.supportsProtocols(request.protocolType, request.protocols, memberId)) return respond(joinError(memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    const pending = group.pendingMembers.get(memberId);
    if (pending !== undefined && request.groupInstanceId === null) {
      pending();
      group.pendingMembers.delete(memberId);
      return this.addMemberAndRebalance(group, memberId, request, respond);
    }
    const error = group.validateMember(memberId, request.groupInstanceId);
    if (error !== ErrorCode.NONE) return respond(joinError(memberId, error));
    const member = group.members.get(memberId)!;
    switch (group.state) {
      case 'PreparingRebalance':
        return this.updateMemberAndRebalance(group, member, request, respond);
      case 'CompletingRebalance':
        // The same metadata again: the member missed its JoinGroup answer, so it gets it again.
        if (member.matches(request.protocols)) return respond(group.joinOutcome(member));
        return this.updateMemberAndRebalance(group, member, request, respond);
      case 'Stable':
        // A leader's rejoin asks for a new assignment (its topics' metadata may have changed).
        if (memberId === group.leaderId || !member.matches(request.protocols)) return this.updateMemberAndRebalance(group, member, request, respond);
        return respond(group.joinOutcome(member));
      default:
        return respond(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }

  private addMemberAndRebalance(group: ClassicGroup, memberId: string, request: JoinRequest, respond: (outcome: JoinOutcome) => void): void {
    const member = new Member(memberId, request.groupInstanceId, request.clientId, request.clientHost, request.rebalanceTimeoutMs, request.sessionTimeoutMs, request.protocols);
    member.isNew = true;
    member.joinWaiter = respond;
    if (group.is('PreparingRebalance') && group.previousState === 'Empty') group.newMemberAdded = true;
    group.add(member, request.protocolType);
    this.log.info({ group: group.groupId, member: memberId, instance: request.groupInstanceId }, 'member joining group');
    // A new member cannot heartbeat while its JoinGroup waits, so that wait has its own limit.
    this.scheduleExpiry(group, member, this.options.newMemberJoinTimeoutMs);
    this.maybePrepareRebalanceOrCompleteJoin(group);
  }

  private updateMemberAndRebalance(group: ClassicGroup, member: Member, request: JoinRequest, respond: (outcome: JoinOutcome) => void): void {
    member.protocols = request.protocols;
    member.rebalanceTimeoutMs = request.rebalanceTimeoutMs;
    member.sessionTimeoutMs = request.sessionTimeoutMs;
    member.completeJoin(joinError(member.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
    member.joinWaiter = respond;
    this.maybePrepareRebalanceOrCompleteJoin(group);
  }

  /** A static member back with no member id takes its instance's place under a new id. */
  private replaceStaticMember(group: ClassicGroup, previous: Member, memberId: string, request: JoinRequest, respond: (outcome: JoinOutcome) => void): void {
    previous.cancelExpiry?.();
    previous.completeJoin(joinError(previous.memberId, ErrorCode.FENCED_INSTANCE_ID));
    previous.completeSync(syncError(ErrorCode.FENCED_INSTANCE_ID));
    const member = new Member(memberId, request.groupInstanceId, request.clientId, request.clientHost, request.rebalanceTimeoutMs, request.sessionTimeoutMs, request.protocols);
    member.assignment = previous.assignment;
    member.joinWaiter = respond;
    group.replace(previous, member);
    this.log.info({ group: group.groupId, member: memberId, replaced: previous.memberId, instance: request.groupInstanceId }, 'static member rejoined');
    this.scheduleExpiry(group, member, member.sessionTimeoutMs);
    if (group.is('Stable') && group.selectProtocol() === group.protocolName) {
      // The assignment still holds: the new incarnation takes the old one's share, no rebalance.
      member.completeJoin(group.joinOutcome(member, memberId === group.leaderId));
    } else if (group.is('Stable', 'CompletingRebalance')) {
      this.prepareRebalance(group);
    } else {
      this.maybeCompleteJoinPhase(group);
    }
  }

  // ---- the rebalance ----

  private maybePrepareRebalanceOrCompleteJoin(group: ClassicGroup): void {
    if (group.is('Stable', 'CompletingRebalance', 'Empty')) this.prepareRebalance(group);
    else this.maybeCompleteJoinPhase(group);
  }

  private prepareRebalance(group: ClassicGroup): void {
    if (group.is('CompletingRebalance')) this.resetAssignments(group, ErrorCode.REBALANCE_IN_PROGRESS);
    group.cancelPendingSync?.();
    group.cancelPendingSync = undefined;
    const initial = group.is('Empty');
    group.transitionTo('PreparingRebalance');
    this.log.info({ group: group.groupId, generation: group.generationId }, 'preparing rebalance');
    if (initial) {
      const delay = this.options.initialRebalanceDelayMs;
      this.scheduleJoinPhase(group, delay, () => this.completeInitialRebalance(group, delay, Math.max(group.rebalanceTimeoutMs() - delay, 0)));
    } else if (group.hasAllMembersJoined()) {
      this.completeJoin(group);
    } else {
      this.scheduleJoinPhase(group, group.rebalanceTimeoutMs(), () => this.completeJoin(group));
    }
  }

  /** Each member that arrives during the initial delay extends it, up to the rebalance timeout. */
  private completeInitialRebalance(group: ClassicGroup, delayMs: number, remainingMs: number): void {
    if (!group.newMemberAdded || remainingMs === 0) return this.completeJoin(group);
    group.newMemberAdded = false;
    const nextDelay = Math.min(delayMs, remainingMs);
    this.scheduleJoinPhase(group, nextDelay, () => this.completeInitialRebalance(group, nextDelay, Math.max(remainingMs - delayMs, 0)));
  }

  private maybeCompleteJoinPhase(group: ClassicGroup): void {
    if (group.is('PreparingRebalance') && group.hasAllMembersJoined() && group.previousState !== 'Empty') this.completeJoin(group);
  }

  private completeJoin(group: ClassicGroup): void {
    group.cancelJoinPhase?.();
    group.cancelJoinPhase = undefined;
    // Dynamic members that did not rejoin in time are out; static ones keep their place.
    for (const member of [...group.members.values()]) {
      if (member.joinWaiter === undefined && member.groupInstanceId === null) {
        this.log.info({ group: group.groupId, member: member.memberId }, 'member did not rejoin in time');
        this.removeMember(group, member);
      }
    }
    if (!group.electJoinedLeader() && group.members.size > 0) {
      // Only static members that have not rejoined remain: wait for them or their sessions' end.
      this.scheduleJoinPhase(group, group.rebalanceTimeoutMs(), () => this.completeJoin(group));
      return;
    }
    group.initNextGeneration();
    this.log.info({ group: group.groupId, generation: group.generationId, protocol: group.protocolName, members: group.members.size }, 'join phase complete');
    if (group.is('Empty')) return this.dropIfUnused(group);
    for (const member of group.members.values()) {
      member.completeJoin(group.joinOutcome(member));
      member.isNew = false;
      this.scheduleExpiry(group, member, member.sessionTimeoutMs);
      group.pendingSync.add(member.memberId);
    }
    // Members that never send SyncGroup are removed after the rebalance timeout.
    group.cancelPendingSync = this.options.scheduler.schedule(group.rebalanceTimeoutMs(), () => {
      group.cancelPendingSync = undefined;
      for (const memberId of [...group.pendingSync]) this.removeMember(group, group.members.get(memberId)!);
      this.log.info({ group: group.groupId, generation: group.generationId }, 'members did not sync in time');
      this.afterMemberRemoved(group);
    });
  }

  private syncReceived(group: ClassicGroup, memberId: string): void {
    if (group.pendingSync.delete(memberId) && group.pendingSync.size === 0) {
      group.cancelPendingSync?.();
      group.cancelPendingSync = undefined;
    }
  }

  private propagateAssignment(group: ClassicGroup, errorCode: number): void {
    const ok = errorCode === ErrorCode.NONE;
    for (const member of group.members.values()) {
      const answered = member.completeSync({
        errorCode,
        protocolType: ok ? group.protocolType : null,
        protocolName: ok ? group.protocolName : null,
        assignment: member.assignment,
      });
      if (answered) this.scheduleExpiry(group, member, member.sessionTimeoutMs);
    }
  }

  private resetAssignments(group: ClassicGroup, errorCode: number): void {
    for (const member of group.members.values()) member.assignment = EMPTY_ASSIGNMENT;
    this.propagateAssignment(group, errorCode);
  }

  // ---- leaving and expiry ----

  private removeLeaving(group: ClassicGroup, { memberId, groupInstanceId }: MemberIdentity): number {
    // An administrator may remove a static member by its instance id alone.
    if (memberId === '') {
      const holder = groupInstanceId === null ? undefined : group.staticMembers.get(groupInstanceId);
      if (holder === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      this.removeMember(group, group.members.get(holder)!);
      return ErrorCode.NONE;
    }
    const pending = group.pendingMembers.get(memberId);
    if (pending !== undefined) {
      pending();
      group.pendingMembers.delete(memberId);
      return ErrorCode.NONE;
    }
    const error = group.validateMember(memberId, groupInstanceId);
    if (error === ErrorCode.NONE) this.removeMember(group, group.members.get(memberId)!);
    return error;
  }

  private removeMember(group: ClassicGroup, member: Member): void {
    member.cancelExpiry?.();
    member.completeJoin(joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    member.completeSync(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    group.remove(member.memberId);
  }

  private afterMemberRemoved(group: ClassicGroup): void {
    if (group.is('Stable', 'CompletingRebalance')) this.prepareRebalance(group);
    else this.maybeCompleteJoinPhase(group);
    this.dropIfUnused(group);
  }

  private scheduleExpiry(group: ClassicGroup, member: Member, delayMs: number): void {
    member.cancelExpiry?.();
    member.cancelExpiry = this.options.scheduler.schedule(delayMs, () => {
      member.cancelExpiry = undefined;
      // A member waiting in a rebalance has done its part; it is timed again when that ends.
      if (!member.isNew && (member.joinWaiter !== undefined || member.syncWaiter !== undefined)) return;
      this.log.info({ group: group.groupId, member: member.memberId }, 'member session expired');
      this.removeMember(group, member);
      this.afterMemberRemoved(group);
    });
  }

  private expirePendingMember(group: ClassicGroup, memberId: string): void {
    group.pendingMembers.delete(memberId);
    this.maybeCompleteJoinPhase(group);
    this.dropIfUnused(group);
  }

  private scheduleJoinPhase(group: ClassicGroup, delayMs: number, task: () => void): void {
    group.cancelJoinPhase?.();
    group.cancelJoinPhase = this.options.scheduler.schedule(delayMs, () => {
      group.cancelJoinPhase = undefined;
      task();
    });
  }

  // ---- helpers ----

  /** The group and member a request names, or the error Kafka gives when they do not check out. */
  private findMember(request: MemberRequest): { group: ClassicGroup; member: Member } | number {
    if (this.closed) return ErrorCode.NOT_COORDINATOR;
    if (request.groupId === '') return ErrorCode.INVALID_GROUP_ID;
    const group = this.groups.get(request.groupId);
    if (group === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    const error = group.validateMember(request.memberId, request.groupInstanceId);
    if (error !== ErrorCode.NONE) return error;
    if (request.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    return { group, member: group.members.get(request.memberId)! };
  }

  /**
   * Kafka's checks: generation -1 commits (admin tools, consumers without group management)
   * are taken while the group has no members; otherwise the member and generation must match.
   */
  private commitError(request: CommitRequest): number {
    if (this.closed) return ErrorCode.NOT_COORDINATOR;
    const { groupId, generationId, memberId, groupInstanceId } = request;
    const group = this.groups.get(groupId);
    if (group === undefined) {
      if (generationId < 0) return ErrorCode.NONE;
      if (this.offsetStore.has(groupId)) return ErrorCode.UNKNOWN_MEMBER_ID;
      return request.apiVersion >= 9 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
    }
    if (generationId < 0 && group.is('Empty')) return ErrorCode.NONE;
    if (generationId >= 0 || memberId !== '' || groupInstanceId !== null) {
      const error = group.validateMember(memberId, groupInstanceId);
      if (error !== ErrorCode.NONE) return error;
      if (generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    } else if (!group.is('Empty')) {
      return ErrorCode.UNKNOWN_MEMBER_ID;
    }
    if (group.is('CompletingRebalance')) return ErrorCode.REBALANCE_IN_PROGRESS;
    // A commit shows the member is alive, as a heartbeat would.
    const member = group.members.get(memberId);
    if (member !== undefined) this.scheduleExpiry(group, member, member.sessionTimeoutMs);
    return ErrorCode.NONE;
  }

  /** An Empty group with no member ids handed out lives on only through its offsets. */
  private dropIfUnused(group: ClassicGroup): void {
    if (group.is('Empty') && group.members.size === 0 && group.pendingMembers.size === 0 && this.groups.get(group.groupId) === group) this.discard(group);
  }

  private discard(group: ClassicGroup): void {
    group.cancelJoinPhase?.();
    group.cancelPendingSync?.();
    for (const cancel of group.pendingMembers.values()) cancel();
    for (const member of group.members.values()) member.cancelExpiry?.();
    group.transitionTo('Dead');
    this.groups.delete(group.groupId);
  }
}
