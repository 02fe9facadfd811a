/**
 * Kafka's classic rebalance, step by step, for requests already checked against their group:
 * a join (or leave, or expired session) opens the join phase, which ends when every member has
 * rejoined or the rebalance timeout passes; then the leader's SyncGroup hands out the
 * assignment. Kafka's names are kept for the steps. Timers go through the Scheduler.
 */
import { randomUUID } from 'node:crypto';
import { CoordinatorLogNotWritten } from '../protocol/coordinator-log.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { EMPTY_ASSIGNMENT, joinError, Member, syncError, type ClassicGroup, type JoinOutcome, type Protocol, type SyncOutcome } from './classic-group.js';
import type { Scheduler } from './scheduler.js';

export interface RebalanceLog {
  info(fields: object, message: string): void;
}

export interface RebalanceOptions {
  readonly scheduler: Scheduler;
  /**
   * group.initial.rebalance.delay.ms: how long the first join of an empty group waits for more
   * members. Kafka's default is 3000; a single broker used for tests and local development is
   * better served by a short one.
   */
  readonly initialRebalanceDelayMs: number;
  /** group.classic.new.member.join.timeout.ms: a new member's JoinGroup is given up after this. */
  readonly newMemberJoinTimeoutMs: number;
  readonly log: RebalanceLog;
}

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

export interface MemberIdentity {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

type Respond = (outcome: JoinOutcome) => void;

export class Rebalancer {
  /** Rebalances completed since the start: a leader's SyncGroup that made its group Stable (Kafka's CompletedRebalances sensor). */
  completedRebalances = 0;

  constructor(
    private readonly options: RebalanceOptions,
    /**
     * Stores a group that has settled: its rebalance's assignment, a static member's return, or
     * Empty. Resolves once stored.
     */
    private readonly store: (group: ClassicGroup) => Promise<void>,
  ) {}

  join(group: ClassicGroup, request: JoinRequest): Promise<JoinOutcome> {
    return new Promise((respond) => {
      if (request.memberId === '') this.joinNewMember(group, request, respond);
      else this.joinExistingMember(group, request, respond);
    });
  }

  /** Stores the group in the background; a failed write is the store's to report and retry. */
  private settled(group: ClassicGroup): void {
    this.store(group).catch(() => {});
  }

  /** A SyncGroup from a member of the current generation. */
  sync(group: ClassicGroup, member: Member, assignments: readonly { readonly memberId: string; readonly assignment: Buffer }[]): Promise<SyncOutcome> {
    switch (group.state) {
      case 'PreparingRebalance':
        return Promise.resolve(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      case 'Stable':
        this.syncReceived(group, member.memberId);
        // As in Kafka, a SyncGroup of a Stable group restarts the member's session, as a heartbeat does.
        this.keepAlive(group, member);
        return Promise.resolve({
          errorCode: ErrorCode.NONE,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          assignment: member.assignment,
        });
      case 'CompletingRebalance':
        return new Promise((respond) => {
          member.completeSync(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
          member.syncWaiter = respond;
          this.syncReceived(group, member.memberId);
          if (member.memberId !== group.leaderId) return;
          const assigned = new Map(assignments.map((a) => [a.memberId, a.assignment]));
          for (const m of group.members.values()) m.assignment = assigned.get(m.memberId) ?? EMPTY_ASSIGNMENT;
          // As Kafka's `GroupMetadataManager.classicGroupSyncToLeader`: the members are answered once the
          // assignment is stored, if the group is still where the leader left it; a failed write rebalances again.
          const generation = group.generationId;
          const unchanged = () => group.is('CompletingRebalance') && group.generationId === generation;
          this.store(group).then(
            () => {
              if (!unchanged()) return;
              this.propagateAssignment(group, ErrorCode.NONE);
              group.transitionTo('Stable');
              this.completedRebalances++;
            },
            (err: Error) => {
              if (!unchanged()) return;
              this.resetAssignments(group, err instanceof CoordinatorLogNotWritten ? err.errorCode : ErrorCode.COORDINATOR_NOT_AVAILABLE);
              this.maybePrepareRebalanceOrCompleteJoin(group);
            },
          );
        });
      default:
        return Promise.resolve(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }

  /** Restarts the member's session; a member must learn of a rebalance from its heartbeat. */
  heartbeat(group: ClassicGroup, member: Member): number {
    this.keepAlive(group, member);
    return group.is('PreparingRebalance') ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
  }

  /** A rebalance of a Stable group for no member's join: its members learn of it from their heartbeats (a downgraded group's). */
  rebalance(group: ClassicGroup): void {
    this.prepareRebalance(group);
  }

  keepAlive(group: ClassicGroup, member: Member): void {
    this.scheduleExpiry(group, member, member.sessionTimeoutMs);
  }

  /** Removes each member that can be found, then rebalances once; the error code per member. */
  leave(group: ClassicGroup, identities: readonly MemberIdentity[]): number[] {
    const members = group.members.size;
    const errors = identities.map((identity) => this.removeLeaving(group, identity));
    const left = identities.filter((_, i) => errors[i] === ErrorCode.NONE);
    if (left.length > 0) {
      this.options.log.info({ group: group.groupId, members: left.map((m) => m.memberId || m.groupInstanceId) }, 'members left group');
      // Only pending member ids leaving (a client closed mid-join) change no one's assignment: as
      // in Kafka, no rebalance for them, though a join phase may now be complete.
      if (group.members.size < members) this.afterMemberRemoved(group);
      else this.maybeCompleteJoinPhase(group);
    }
    return errors;
  }

  // ---- joining ----

  private joinNewMember(group: ClassicGroup, request: JoinRequest, respond: Respond): void {
    if (!group.supportsProtocols(request.protocolType, request.protocols)) return respond(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    const memberId = `${request.groupInstanceId ?? request.clientId}-${randomUUID()}`;
    if (request.groupInstanceId !== null) {
      const previous = group.staticMembers.get(request.groupInstanceId);
      if (previous !== undefined) return this.replaceStaticMember(group, group.members.get(previous)!, memberId, request, respond);
    } else if (request.requireKnownMemberId) {
      group.pendingMembers.set(
        memberId,
        this.options.scheduler.schedule(request.sessionTimeoutMs, () => this.expirePendingMember(group, memberId)),
      );
      return respond(joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED));
    }
    this.addMemberAndRebalance(group, memberId, request, respond);
  }

  private joinExistingMember(group: ClassicGroup, request: JoinRequest, respond: Respond): void {
    const { memberId } = request;
    if (!group.supportsProtocols(request.protocolType, request.protocols)) return respond(joinError(memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
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

  private addMemberAndRebalance(group: ClassicGroup, memberId: string, request: JoinRequest, respond: Respond): void {
    const member = memberJoining(memberId, request);
    member.isNew = true;
    member.joinWaiter = respond;
    if (group.is('PreparingRebalance') && group.previousState === 'Empty') group.newMemberAdded = true;
    group.add(member, request.protocolType);
    this.options.log.info({ group: group.groupId, member: memberId, instance: request.groupInstanceId }, 'member joining group');
    // A new member cannot heartbeat while its JoinGroup waits, so that wait has its own limit.
    this.scheduleExpiry(group, member, this.options.newMemberJoinTimeoutMs);
    this.maybePrepareRebalanceOrCompleteJoin(group);
  }

  private updateMemberAndRebalance(group: ClassicGroup, member: Member, request: JoinRequest, respond: Respond): void {
    member.protocols = request.protocols;
    member.rebalanceTimeoutMs = request.rebalanceTimeoutMs;
    member.sessionTimeoutMs = request.sessionTimeoutMs;
    member.completeJoin(joinError(member.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
    member.joinWaiter = respond;
    this.maybePrepareRebalanceOrCompleteJoin(group);
  }

  /** A static member back with no member id takes its instance's place under a new id. */
  private replaceStaticMember(group: ClassicGroup, previous: Member, memberId: string, request: JoinRequest, respond: Respond): void {
    previous.cancelExpiry?.();
    previous.completeJoin(joinError(previous.memberId, ErrorCode.FENCED_INSTANCE_ID));
    previous.completeSync(syncError(ErrorCode.FENCED_INSTANCE_ID));
    const member = memberJoining(memberId, request);
    member.assignment = previous.assignment;
    member.joinWaiter = respond;
    group.replace(previous, member);
    this.options.log.info({ group: group.groupId, member: memberId, replaced: previous.memberId, instance: request.groupInstanceId }, 'static member rejoined');
    this.keepAlive(group, member);
    if (group.is('Stable') && group.selectProtocol() === group.protocolName) {
      // The assignment still holds: the new incarnation takes the old one's share, no rebalance.
      // As in Kafka, answered once stored: a restart must know the new member id, or it would
      // fence the instance. If the write fails the old member is put back.
      this.store(group).then(
        () => member.completeJoin(group.joinOutcome(member, memberId === group.leaderId)),
        () => {
          if (group.is('Stable') && group.members.get(memberId) === member) {
            member.cancelExpiry?.();
            group.replace(member, previous);
            this.keepAlive(group, previous);
            // What the store holds to write next is the group as it is again.
            this.settled(group);
          }
          member.completeJoin(joinError(memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
        },
      );
    } else if (group.is('Stable', 'CompletingRebalance')) {
      this.prepareRebalance(group);
    } else {
      this.maybeCompleteJoinPhase(group);
    }
  }

  // ---- the join phase ----

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
    this.options.log.info({ group: group.groupId, generation: group.generationId }, 'preparing rebalance');
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

  /** Ends the join phase once every member has rejoined, except during the initial delay. */
  private maybeCompleteJoinPhase(group: ClassicGroup): void {
    if (group.is('PreparingRebalance') && group.hasAllMembersJoined() && group.previousState !== 'Empty') this.completeJoin(group);
  }

  private completeJoin(group: ClassicGroup): void {
    group.cancelJoinPhase?.();
    group.cancelJoinPhase = undefined;
    // Dynamic members that did not rejoin in time are out; static ones keep their place.
    for (const member of [...group.members.values()]) {
      if (member.joinWaiter === undefined && member.groupInstanceId === null) {
        this.options.log.info({ group: group.groupId, member: member.memberId }, 'member did not rejoin in time');
        this.removeMember(group, member);
      }
    }
    if (!group.electJoinedLeader() && group.members.size > 0) {
      // Only static members that have not rejoined remain: wait for them or their sessions' end.
      this.scheduleJoinPhase(group, group.rebalanceTimeoutMs(), () => this.completeJoin(group));
      return;
    }
    group.initNextGeneration();
    this.options.log.info(
      { group: group.groupId, generation: group.generationId, protocol: group.protocolName, members: group.members.size },
      'join phase complete',
    );
    if (group.is('Empty')) return this.settled(group);
    for (const member of group.members.values()) {
      member.completeJoin(group.joinOutcome(member));
      member.isNew = false;
      this.keepAlive(group, member);
      group.pendingSync.add(member.memberId);
    }
    // Members that never send SyncGroup are removed after the rebalance timeout.
    group.cancelPendingSync = this.options.scheduler.schedule(group.rebalanceTimeoutMs(), () => {
      group.cancelPendingSync = undefined;
      for (const memberId of [...group.pendingSync]) this.removeMember(group, group.members.get(memberId)!);
      this.options.log.info({ group: group.groupId, generation: group.generationId }, 'members did not sync in time');
      this.afterMemberRemoved(group);
    });
  }

  private scheduleJoinPhase(group: ClassicGroup, delayMs: number, task: () => void): void {
    group.cancelJoinPhase?.();
    group.cancelJoinPhase = this.options.scheduler.schedule(delayMs, () => {
      group.cancelJoinPhase = undefined;
      task();
    });
  }

  // ---- the sync phase ----

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
      if (answered) this.keepAlive(group, member);
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
  }

  private scheduleExpiry(group: ClassicGroup, member: Member, delayMs: number): void {
    member.cancelExpiry?.();
    member.cancelExpiry = this.options.scheduler.schedule(delayMs, () => {
      member.cancelExpiry = undefined;
      // A member waiting in a rebalance has done its part; it is timed again when that ends.
      if (!member.isNew && (member.joinWaiter !== undefined || member.syncWaiter !== undefined)) return;
      this.options.log.info({ group: group.groupId, member: member.memberId }, 'member session expired');
      this.removeMember(group, member);
      this.afterMemberRemoved(group);
    });
  }

  private expirePendingMember(group: ClassicGroup, memberId: string): void {
    group.pendingMembers.delete(memberId);
    this.maybeCompleteJoinPhase(group);
  }
}

/** The member a JoinGroup makes, under `memberId`. */
function memberJoining(memberId: string, request: JoinRequest): Member {
  const { groupInstanceId, clientId, clientHost, rebalanceTimeoutMs, sessionTimeoutMs, protocols } = request;
  return new Member(memberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs, sessionTimeoutMs, protocols);
}
