/**
 * The coordinator of consumer-protocol groups (KIP-848), the aims of Kafka's
 * `GroupMetadataManager.consumerGroupHeartbeat`: it checks a heartbeat against the group and the
 * member, applies joins, leaves and subscription changes to the group's rules
 * (`consumer-group.ts`), moves the member one step towards its target, stores what changed, and
 * only then answers. Sessions and rebalance timeouts run on the scheduler; a member past either is
 * removed and the others are given its partitions.
 *
 * Members of the classic protocol are served here too once their group is a consumer group
 * (KIP-848's online migration, Kafka's `classicGroupJoinToConsumerGroup` and its siblings): their
 * JoinGroup is a step of the same reconciliation, their SyncGroup hands out what it gave them, and
 * their Heartbeat asks them to rejoin when a step waits on them.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCode } from '../protocol/error-codes.js';
import type { ConsumerGroupMigrationPolicy } from '../settings/settings.js';
import { ASSIGNORS, isAssignorName, type AssignorName, type TopicPartitions } from './assignors.js';
import {
  ConsumerGroup,
  isSubset,
  joiningMember,
  LEAVE_STATIC_EPOCH,
  mayCommit,
  sameAssignment,
  type ConsumerMember,
  type TopicImage,
} from './consumer-group.js';
import { joinError, syncError, type JoinOutcome, type SyncOutcome } from './classic-group.js';
import { CONSUMER_PROTOCOL_TYPE, protocolVersion, readSubscription, writeAssignment, type Subscription as ClassicSubscription } from './consumer-protocol.js';
import { byTopicId, byTopicName } from './group-conversion.js';
import type { GroupStore } from './group-store.js';
import type { JoinRequest, MemberIdentity as ClassicIdentity } from './rebalancer.js';
import type { Cancel, Scheduler } from './scheduler.js';

/** A member leaving for good (Kafka's `LEAVE_GROUP_MEMBER_EPOCH`). */
export const LEAVE_EPOCH = -1;

export interface ConsumerGroupOptions {
  /** group.consumer.session.timeout.ms */
  readonly sessionTimeoutMs: number;
  /** group.consumer.heartbeat.interval.ms */
  readonly heartbeatIntervalMs: number;
  /** group.consumer.max.size */
  readonly maxSize: number;
  /** group.consumer.assignors: the first is used when members name none. */
  readonly assignors: readonly AssignorName[];
  readonly scheduler: Scheduler;
  /** The topics as the broker has them now. */
  readonly topics: () => TopicImage;
  readonly onStoreError: (groupId: string, err: Error) => void;
  /** group.consumer.migration.policy */
  readonly migrationPolicy: ConsumerGroupMigrationPolicy;
  /**
   * Called when a member's removal (with the group's epoch before it), or a classic member's taking
   * a consumer-protocol member's place (with the group's epoch), leaves only classic members: the
   * write of the classic group it became, rebalancing if asked (the caller has taken it with
   * `drop`), or undefined if it stays a consumer group.
   */
  readonly onlyClassicLeft: (group: ConsumerGroup, generation: number, rebalance: boolean) => Promise<void> | undefined;
}

/** A classic member's request in a consumer group, as the classic coordinator checked it. */
export interface ClassicMemberRequest {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

export interface TopicAssignment {
  readonly topicId: string;
  readonly partitions: number[];
}

export interface ConsumerHeartbeat {
  readonly groupId: string;
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly rebalanceTimeoutMs: number;
  readonly subscribedTopicNames: readonly string[] | null;
  readonly subscribedTopicRegex: string | null;
  readonly serverAssignor: string | null;
  readonly topicPartitions: readonly TopicAssignment[] | null;
  readonly apiVersion: number;
  readonly clientId: string;
  readonly clientHost: string;
}

export interface ConsumerHeartbeatOutcome {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly memberId: string | null;
  readonly memberEpoch: number;
  readonly heartbeatIntervalMs: number;
  readonly assignment: { topicPartitions: TopicAssignment[] } | null;
}

const refused = (errorCode: number, errorMessage: string | null = null): ConsumerHeartbeatOutcome => ({
  errorCode,
  errorMessage,
  memberId: null,
  memberEpoch: 0,
  heartbeatIntervalMs: 0,
  assignment: null,
});

/** Regexes compiled, kept while few: a bound on what a client's regexes may hold. */
const REGEX_CACHE_LIMIT = 1000;

export class ConsumerCoordinator {
  readonly groups = new Map<string, ConsumerGroup>();
  /** `groupId\0memberId` → the member's session timer. */
  private readonly sessions = new Map<string, Cancel>();
  /** `groupId\0memberId` → the timer that fences a member slow to revoke. */
  private readonly rebalances = new Map<string, Cancel>();
  /** `groupId\0memberId` → the timer that fences a classic member slow to rejoin, or to sync after its join. */
  private readonly classicDeadlines = new Map<string, Cancel>();
  private readonly regexes = new Map<string, RegExp>();
  /** Heartbeats, leaves and expiries that moved a group's epoch on since the start (Kafka's ConsumerGroupRebalances sensor). */
  private epochBumps = 0;

  constructor(
    private readonly store: GroupStore,
    private readonly options: ConsumerGroupOptions,
  ) {
    // As after Kafka loads its groups: each member has a session from now to show it is still there.
    for (const group of store.takeConsumerGroups()) {
      this.groups.set(group.groupId, group);
      for (const member of group.members.values()) this.keepAlive(group, member);
    }
  }

  /** Whether `regex` compiles; brook compiles JavaScript regular expressions, not RE2/J's (docs/departures.md). */
  validRegex(regex: string): boolean {
    try {
      this.compiled(regex);
      return true;
    } catch {
      return false;
    }
  }

  readonly matches = (regex: string, topic: string): boolean => this.compiled(regex).test(topic);

  /** The answer to a heartbeat that is wrong in itself, whatever the group: checked before anything else. */
  refusal(request: ConsumerHeartbeat): ConsumerHeartbeatOutcome | undefined {
    const problem = this.requestProblem(request);
    if (problem !== undefined) return refused(ErrorCode.INVALID_REQUEST, problem);
    if (request.serverAssignor !== null && !(isAssignorName(request.serverAssignor) && this.options.assignors.includes(request.serverAssignor))) {
      return refused(ErrorCode.UNSUPPORTED_ASSIGNOR, `the assignor ${request.serverAssignor} is not one of ${this.options.assignors.join(', ')}`);
    }
    if (request.subscribedTopicRegex !== null && request.subscribedTopicRegex !== '' && !this.validRegex(request.subscribedTopicRegex)) {
      return refused(ErrorCode.INVALID_REGULAR_EXPRESSION, `${request.subscribedTopicRegex} is not a valid regular expression`);
    }
    return undefined;
  }

  /** A classic group taken over with its members (an upgrade): each has a session from now. */
  adopt(group: ConsumerGroup): void {
    this.groups.set(group.groupId, group);
    for (const member of group.members.values()) this.keepAlive(group, member);
  }

  /** Lets go of a group that became a classic group: its timers stop; the caller stores what it became. */
  drop(group: ConsumerGroup): void {
    for (const memberId of group.members.keys()) this.forget(group, memberId);
    this.groups.delete(group.groupId);
  }

  async heartbeat(request: ConsumerHeartbeat): Promise<ConsumerHeartbeatOutcome> {
    const refusal = this.refusal(request);
    if (refusal !== undefined) return refusal;
    if (request.memberEpoch === LEAVE_EPOCH || request.memberEpoch === LEAVE_STATIC_EPOCH) return this.leave(request);
    let group = this.groups.get(request.groupId);
    const epochAtStart = group?.groupEpoch ?? 0;
    let member: ConsumerMember;
    let changed = false;
    if (request.memberEpoch === 0) {
      group ??= new ConsumerGroup(request.groupId);
      const joined = this.join(group, request);
      if (typeof joined === 'number') return refused(joined);
      this.groups.set(group.groupId, group);
      member = joined;
      changed = true;
    } else {
      if (group === undefined) return refused(ErrorCode.UNKNOWN_MEMBER_ID, `group ${request.groupId} not found`);
      const found = this.findMember(group, request);
      if (typeof found === 'number') return refused(found);
      member = found;
      changed = this.updateFields(member, request);
      const epochBefore = group.groupEpoch;
      group.subscribe(member, { topicNames: request.subscribedTopicNames, topicRegex: request.subscribedTopicRegex, serverAssignor: request.serverAssignor });
      changed ||= group.groupEpoch !== epochBefore;
    }
    this.keepAlive(group, member);
    const before = member.assigned;
    const epochsBefore = [group.groupEpoch, group.assignmentEpoch];
    group.refreshTarget(this.options.topics(), ASSIGNORS[this.assignorOf(group)], this.matches);
    changed ||= group.groupEpoch !== epochsBefore[0] || group.assignmentEpoch !== epochsBefore[1];
    changed = group.reconcile(member, request.topicPartitions === null ? null : toPartitions(request.topicPartitions)) || changed;
    this.watchRevocation(group, member);
    this.countBump(group, epochAtStart);
    if (changed) {
      try {
        await this.store.putConsumer(group);
      } catch {
        return refused(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      }
    }
    // Kafka answers the assignment when a member joins, sends a full request, or its assignment changed.
    const full =
      request.rebalanceTimeoutMs !== -1 && (request.subscribedTopicNames !== null || request.subscribedTopicRegex !== null) && request.topicPartitions !== null;
    const send = request.memberEpoch === 0 || full || !sameAssignment(before, member.assigned);
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.options.heartbeatIntervalMs,
      assignment: send ? { topicPartitions: fromPartitions(member.assigned) } : null,
    };
  }

  /**
   * The error an offset commit or fetch in the name of a member gets, as Kafka's
   * `ConsumerGroup.validateOffsetCommit` and `validateOffsetFetch`: none from a client outside the group
   * (epoch below 0, no member id) while the group is Empty; else the member must be there, at its epoch.
   */
  memberEpochError(
    group: ConsumerGroup,
    memberId: string | null,
    memberEpoch: number,
    partitions: readonly { topic: string; partition: number }[] = [],
  ): number {
    if (memberEpoch < 0 && (memberId === null || memberId === '') && group.members.size === 0) return ErrorCode.NONE;
    const member = memberId === null ? undefined : group.members.get(memberId);
    if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (memberEpoch === member.memberEpoch) return ErrorCode.NONE;
    // A classic member knows generations: its own or ILLEGAL_GENERATION (Kafka's `ConsumerGroup.validateMemberEpoch`).
    if (member.classic !== null) return ErrorCode.ILLEGAL_GENERATION;
    // A commit at an older epoch is the member's for partitions it has owned since (KIP-1251).
    const image = this.options.topics().byName;
    const own = (p: { topic: string; partition: number }): boolean => mayCommit(member, memberEpoch, image.get(p.topic)?.topicId ?? '', p.partition);
    return partitions.length > 0 && partitions.every(own) ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
  }

  /** The assignor the group uses: the one most of its members name, else the first configured (Kafka's `ConsumerGroup.computePreferredServerAssignor`). */
  assignorOf(group: ConsumerGroup): AssignorName {
    const counts = new Map<AssignorName, number>();
    for (const m of group.members.values()) {
      if (m.serverAssignor !== null && isAssignorName(m.serverAssignor)) counts.set(m.serverAssignor, (counts.get(m.serverAssignor) ?? 0) + 1);
    }
    let best: AssignorName = this.options.assignors[0]!;
    let most = 0;
    for (const [name, n] of counts) if (n > most) [best, most] = [name, n];
    return best;
  }

  // ---- classic members of a consumer group ----

  /** JoinGroup from a classic member: a new member, or one rejoining, taken one reconciliation step on; answered once stored. */
  async classicJoin(group: ConsumerGroup, r: JoinRequest): Promise<JoinOutcome> {
    if (this.options.migrationPolicy === 'disabled') return joinError(r.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const memberId = r.memberId === '' ? newMemberId() : r.memberId;
    if (group.members.size >= this.options.maxSize && (r.memberId === '' || !group.members.has(memberId)))
      return joinError(r.memberId, ErrorCode.GROUP_MAX_SIZE_REACHED);
    const names = r.protocols.map((p) => p.name);
    if (!group.supportsClassicProtocols(r.protocolType, names, CONSUMER_PROTOCOL_TYPE)) return joinError(r.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    if (r.memberId === '' && r.groupInstanceId === null && r.requireKnownMemberId) return joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED);
    const subscription = readSubscription(r.protocols[0]!.metadata);
    if (subscription === undefined) return joinError(r.memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const classic = { sessionTimeoutMs: r.sessionTimeoutMs, supportedProtocols: r.protocols };
    let member = group.members.get(memberId);
    let replacedConsumerMember = false;
    if (r.groupInstanceId !== null) {
      // Kafka's `getOrMaybeSubscribeStaticConsumerGroupMember`: a static member's new incarnation takes the place of the
      // old one, of either protocol, at epoch 0 with its partitions; a rejoin must name the member holding the instance id.
      const holder = group.members.get(group.staticMembers.get(r.groupInstanceId) ?? '');
      if (r.memberId !== '' && holder === undefined) return joinError(r.memberId, ErrorCode.UNKNOWN_MEMBER_ID);
      if (holder !== undefined && holder.memberId !== memberId) {
        if (r.memberId !== '') return joinError(r.memberId, ErrorCode.FENCED_INSTANCE_ID);
        this.forget(group, holder.memberId);
        member = joiningMember(classicIdentity(memberId, r, subscription), classic);
        group.replaceStatic(holder, member);
        member.memberEpoch = member.previousMemberEpoch = 0;
        replacedConsumerMember = holder.classic === null;
      }
    }
    if (member === undefined) {
      member = joiningMember(classicIdentity(memberId, r, subscription), classic);
      group.addMember(member);
    }
    member.classic = classic;
    member.rebalanceTimeoutMs = r.rebalanceTimeoutMs;
    [member.clientId, member.clientHost] = [r.clientId, r.clientHost];
    if (subscription.rackId !== null) member.rackId = subscription.rackId;
    const epochBefore = group.groupEpoch;
    group.subscribe(member, { topicNames: subscription.topics, topicRegex: '', serverAssignor: null });
    const resubscribed = group.groupEpoch !== epochBefore;
    const image = this.options.topics();
    group.refreshTarget(image, ASSIGNORS[this.assignorOf(group)], this.matches);
    group.reconcile(member, byTopicId(subscription.ownedPartitions, image));
    this.countBump(group, epochBefore);
    // Kafka's `validateOnlineDowngradeWithReplacedMember`: the last consumer-protocol member replaced by a classic one
    // makes the group classic, each member keeping its target; a changed subscription rebalances it.
    const downgraded =
      replacedConsumerMember && group.onlyClassicBesides(new Set()) ? this.options.onlyClassicLeft(group, group.groupEpoch, resubscribed) : undefined;
    try {
      await (downgraded ?? this.store.putConsumer(group));
    } catch {
      return joinError(r.memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
    if (downgraded === undefined) {
      if (group.members.get(memberId) !== member) return joinError(r.memberId, ErrorCode.UNKNOWN_MEMBER_ID);
      this.keepAlive(group, member);
      // Kafka's sync timeout: a member that does not sync within its rebalance timeout is removed.
      this.classicDeadline(group, member, r.rebalanceTimeoutMs, true);
    }
    return {
      errorCode: ErrorCode.NONE,
      generationId: member.memberEpoch,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocolName: classic.supportedProtocols[0]!.name,
      leader: '',
      skipAssignment: false,
      memberId,
      members: [],
    };
  }

  /** SyncGroup from a classic member: the partitions its join gave it, in its protocol's version. */
  classicSync(group: ConsumerGroup, r: ClassicMemberRequest & { protocolType: string | null; protocolName: string | null }): SyncOutcome {
    const member = this.classicMember(group, r);
    if (typeof member === 'number') return syncError(member);
    const protocol = member.classic!.supportedProtocols[0]!;
    if ((r.protocolType !== null && r.protocolType !== CONSUMER_PROTOCOL_TYPE) || (r.protocolName !== null && r.protocolName !== protocol.name)) {
      return syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    }
    if (group.rebalancedSince(member)) {
      this.classicDeadline(group, member, member.rebalanceTimeoutMs, false);
      return syncError(ErrorCode.REBALANCE_IN_PROGRESS);
    }
    this.clearDeadline(group, member.memberId);
    this.keepAlive(group, member);
    // In the version of the member's first protocol, as Kafka's `prepareAssignment` writes it.
    const assignment = writeAssignment(protocolVersion(protocol.metadata), byTopicName(member.assigned, this.options.topics()));
    return { errorCode: ErrorCode.NONE, protocolType: r.protocolType, protocolName: r.protocolName, assignment };
  }

  /** Heartbeat from a classic member: REBALANCE_IN_PROGRESS when its next step needs a rejoin, which it then has its rebalance timeout for. */
  classicHeartbeat(group: ConsumerGroup, r: ClassicMemberRequest): number {
    const member = this.classicMember(group, r);
    if (typeof member === 'number') return member;
    this.keepAlive(group, member);
    if (!group.mustRejoin(member)) return ErrorCode.NONE;
    this.classicDeadline(group, member, member.rebalanceTimeoutMs, false);
    return ErrorCode.REBALANCE_IN_PROGRESS;
  }

  /** LeaveGroup for classic members of a consumer group (Kafka's `classicGroupLeaveToConsumerGroup`): the error per member. */
  classicLeave(group: ConsumerGroup, identities: readonly ClassicIdentity[]): number[] {
    const leaving: string[] = [];
    const errors = identities.map((identity) => {
      let member: ConsumerMember | undefined;
      if (identity.groupInstanceId === null) {
        member = group.members.get(identity.memberId);
        if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      } else {
        member = group.members.get(group.staticMembers.get(identity.groupInstanceId) ?? '');
        if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
        // An administrator may remove a static member by its instance id alone.
        if (identity.memberId !== '' && identity.memberId !== member.memberId) return ErrorCode.FENCED_INSTANCE_ID;
      }
      if (member.classic === null) return ErrorCode.UNKNOWN_MEMBER_ID;
      leaving.push(member.memberId);
      return ErrorCode.NONE;
    });
    if (leaving.length > 0) this.removeMembers(group, leaving).catch((err: Error) => this.options.onStoreError(group.groupId, err));
    return errors;
  }

  /** The classic member a request names, or Kafka's error: UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION. */
  private classicMember(group: ConsumerGroup, r: ClassicMemberRequest): ConsumerMember | number {
    const memberId = r.groupInstanceId === null ? r.memberId : group.staticMembers.get(r.groupInstanceId);
    const member = memberId === undefined ? undefined : group.members.get(memberId);
    if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (member.memberId !== r.memberId) return ErrorCode.FENCED_INSTANCE_ID;
    if (member.classic === null) return ErrorCode.UNKNOWN_MEMBER_ID;
    return r.generationId === member.memberEpoch ? member : ErrorCode.ILLEGAL_GENERATION;
  }

  /**
   * A classic member told to rejoin has its rebalance timeout to do so, and one that joined as long to
   * sync (Kafka's join and sync timeouts); past it, it is removed. A sync deadline replaces any other; a
   * rejoin deadline is kept if one runs.
   */
  private classicDeadline(group: ConsumerGroup, member: ConsumerMember, timeoutMs: number, replace: boolean): void {
    const key = `${group.groupId}\0${member.memberId}`;
    if (this.classicDeadlines.has(key) && !replace) return;
    this.clearDeadline(group, member.memberId);
    this.classicDeadlines.set(
      key,
      this.options.scheduler.schedule(timeoutMs, () => {
        this.classicDeadlines.delete(key);
        this.expire(group, member.memberId);
      }),
    );
  }

  private clearDeadline(group: ConsumerGroup, memberId: string): void {
    const key = `${group.groupId}\0${memberId}`;
    this.classicDeadlines.get(key)?.();
    this.classicDeadlines.delete(key);
  }

  /** How many times a group's epoch moved on since the start: one for each heartbeat, leave or expiry that moved it. */
  get rebalanceCount(): number {
    return this.epochBumps;
  }

  /** Forgets an Empty group (deleted). */
  discard(groupId: string): void {
    this.groups.delete(groupId);
    this.store.remove(groupId);
  }

  close(): void {
    for (const cancel of [...this.sessions.values(), ...this.rebalances.values(), ...this.classicDeadlines.values()]) cancel();
    this.sessions.clear();
    this.rebalances.clear();
    this.classicDeadlines.clear();
    this.groups.clear();
  }

  /** Kafka's `throwIfConsumerGroupHeartbeatRequestIsInvalid`: what is wrong with the request, in a sentence. */
  private requestProblem(r: ConsumerHeartbeat): string | undefined {
    if (r.groupId === '') return 'GroupId can not be empty.';
    if (r.instanceId === '') return 'InstanceId can not be empty.';
    if (r.rackId === '') return 'RackId can not be empty.';
    // From v1 the client names itself (KIP-1082).
    if (r.apiVersion >= 1 && r.memberId === '') return 'MemberId can not be empty.';
    if ((r.memberEpoch > 0 || r.memberEpoch === LEAVE_EPOCH) && r.memberId === '') return 'MemberId can not be empty.';
    if (r.memberEpoch === 0) {
      if (r.rebalanceTimeoutMs === -1) return 'RebalanceTimeoutMs must be provided in first request.';
      if (r.topicPartitions === null || r.topicPartitions.length > 0) return 'TopicPartitions must be empty when (re-)joining.';
      if (r.subscribedTopicNames === null && r.subscribedTopicRegex === null)
        return 'SubscribedTopicNames or SubscribedTopicRegex must be set in first request.';
    } else if (r.memberEpoch === LEAVE_STATIC_EPOCH) {
      if (r.instanceId === null) return 'InstanceId can not be null.';
    } else if (r.memberEpoch < LEAVE_STATIC_EPOCH) {
      return `MemberEpoch ${r.memberEpoch} is invalid.`;
    }
    return undefined;
  }

  /** A member joining at epoch 0: new, back under its own id, or a static member taking its place again. */
  private join(group: ConsumerGroup, r: ConsumerHeartbeat): ConsumerMember | number {
    const memberId = r.memberId !== '' ? r.memberId : newMemberId();
    const member = newMember(memberId, r);
    if (r.instanceId !== null) {
      const holderId = group.staticMembers.get(r.instanceId);
      const holder = holderId === undefined ? undefined : group.members.get(holderId);
      if (holder !== undefined) {
        // Only a consumer-protocol member must have left first; a classic one is replaced as its protocol replaces static members.
        if (holder.classic === null && holder.memberEpoch !== LEAVE_STATIC_EPOCH && holder.memberId !== memberId) return ErrorCode.UNRELEASED_INSTANCE_ID;
        this.forget(group, holder.memberId);
        group.replaceStatic(holder, member);
        group.subscribe(member, { topicNames: r.subscribedTopicNames, topicRegex: r.subscribedTopicRegex, serverAssignor: r.serverAssignor });
        return member;
      }
    }
    if (group.members.has(memberId)) {
      // A member that lost its place (fenced) joins again under its own id: as a new member.
      this.forget(group, memberId);
      group.removeMember(memberId);
    }
    if (group.members.size >= this.options.maxSize) return ErrorCode.GROUP_MAX_SIZE_REACHED;
    group.addMember(member);
    return member;
  }

  private findMember(group: ConsumerGroup, r: ConsumerHeartbeat): ConsumerMember | number {
    const member = group.members.get(r.memberId);
    if (r.instanceId !== null) {
      const holder = group.staticMembers.get(r.instanceId);
      if (holder === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (holder !== r.memberId) return ErrorCode.FENCED_INSTANCE_ID;
    }
    if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    // Kafka's `throwIfMemberEpochIsInvalid`: an older epoch is the one before, when the answer that moved it on was lost.
    if (r.memberEpoch > member.memberEpoch) return ErrorCode.FENCED_MEMBER_EPOCH;
    if (r.memberEpoch < member.memberEpoch) {
      const owned = r.topicPartitions === null ? null : toPartitions(r.topicPartitions);
      if (r.memberEpoch !== member.previousMemberEpoch || owned === null || !isSubset(owned, member.assigned)) return ErrorCode.FENCED_MEMBER_EPOCH;
    }
    return member;
  }

  private async leave(r: ConsumerHeartbeat): Promise<ConsumerHeartbeatOutcome> {
    const group = this.groups.get(r.groupId);
    const memberId = r.instanceId === null ? r.memberId : group?.staticMembers.get(r.instanceId);
    const member = memberId === undefined ? undefined : group?.members.get(memberId);
    if (group === undefined || member === undefined) return refused(ErrorCode.UNKNOWN_MEMBER_ID);
    if (member.memberId !== r.memberId) return refused(ErrorCode.FENCED_INSTANCE_ID);
    if (r.memberEpoch === LEAVE_STATIC_EPOCH) {
      // A static member leaving for a while keeps its place and partitions until its session ends.
      if (member.memberEpoch !== LEAVE_STATIC_EPOCH) member.previousMemberEpoch = member.memberEpoch;
      member.memberEpoch = LEAVE_STATIC_EPOCH;
    }
    try {
      await (r.memberEpoch === LEAVE_STATIC_EPOCH ? this.store.putConsumer(group) : this.removeMembers(group, [member.memberId]));
    } catch {
      return refused(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
    return { ...refused(ErrorCode.NONE), memberId: member.memberId, memberEpoch: r.memberEpoch };
  }

  /** Whether the member's client, rack or rebalance timeout changed, taking the new ones. */
  private updateFields(member: ConsumerMember, r: ConsumerHeartbeat): boolean {
    let changed = false;
    if (r.rackId !== null && r.rackId !== member.rackId) [member.rackId, changed] = [r.rackId, true];
    if (r.rebalanceTimeoutMs !== -1 && r.rebalanceTimeoutMs !== member.rebalanceTimeoutMs) [member.rebalanceTimeoutMs, changed] = [r.rebalanceTimeoutMs, true];
    if (r.clientId !== member.clientId || r.clientHost !== member.clientHost) [member.clientId, member.clientHost, changed] = [r.clientId, r.clientHost, true];
    return changed;
  }

  /** A session from now: a member that does not heartbeat within it is removed. A classic member's session is its own. */
  private keepAlive(group: ConsumerGroup, member: ConsumerMember): void {
    const key = `${group.groupId}\0${member.memberId}`;
    this.sessions.get(key)?.();
    this.sessions.set(
      key,
      this.options.scheduler.schedule(member.classic?.sessionTimeoutMs ?? this.options.sessionTimeoutMs, () => this.expire(group, member.memberId)),
    );
  }

  /** A member asked to revoke has its rebalance timeout to do so, or is removed (Kafka's `scheduleConsumerGroupRebalanceTimeout`). */
  private watchRevocation(group: ConsumerGroup, member: ConsumerMember): void {
    const key = `${group.groupId}\0${member.memberId}`;
    if (member.state !== 'unrevoked_partitions') {
      this.rebalances.get(key)?.();
      this.rebalances.delete(key);
      return;
    }
    if (this.rebalances.has(key)) return;
    const epoch = member.memberEpoch;
    this.rebalances.set(
      key,
      this.options.scheduler.schedule(member.rebalanceTimeoutMs, () => {
        this.rebalances.delete(key);
        const now = group.members.get(member.memberId);
        if (now !== undefined && now.state === 'unrevoked_partitions' && now.memberEpoch === epoch) this.expire(group, member.memberId);
      }),
    );
  }

  private expire(group: ConsumerGroup, memberId: string): void {
    if (this.groups.get(group.groupId) !== group || !group.members.has(memberId)) return;
    this.removeMembers(group, [memberId]).catch((err: Error) => this.options.onStoreError(group.groupId, err));
  }

  /**
   * Removes members and gives their partitions to the others, or, if only classic members are left,
   * has the group become a classic group (Kafka's `consumerGroupFenceMembers`, with
   * `validateOnlineDowngradeWithFencedMembers`); resolves once what the group is now is stored.
   */
  private removeMembers(group: ConsumerGroup, memberIds: readonly string[]): Promise<void> {
    const epoch = group.groupEpoch;
    for (const memberId of memberIds) {
      this.forget(group, memberId);
      group.removeMember(memberId);
    }
    const downgraded = group.members.size > 0 && group.onlyClassicBesides(new Set()) ? this.options.onlyClassicLeft(group, epoch, true) : undefined;
    if (downgraded !== undefined) return downgraded;
    group.refreshTarget(this.options.topics(), ASSIGNORS[this.assignorOf(group)], this.matches);
    this.countBump(group, epoch);
    return this.store.putConsumer(group);
  }

  private countBump(group: ConsumerGroup, epochBefore: number): void {
    if (group.groupEpoch !== epochBefore) this.epochBumps++;
  }

  private forget(group: ConsumerGroup, memberId: string): void {
    const key = `${group.groupId}\0${memberId}`;
    for (const timers of [this.sessions, this.rebalances, this.classicDeadlines]) {
      timers.get(key)?.();
      timers.delete(key);
    }
  }

  private compiled(regex: string): RegExp {
    let compiled = this.regexes.get(regex);
    if (compiled === undefined) {
      // RE2/J's matches(): the whole topic name.
      compiled = new RegExp(`^(?:${regex})$`, 'u');
      if (this.regexes.size >= REGEX_CACHE_LIMIT) this.regexes.clear();
      this.regexes.set(regex, compiled);
    }
    return compiled;
  }
}

/** A member id as Kafka's `Uuid.randomUuid().toString()` makes one: 16 random bytes in URL-safe base64. */
function newMemberId(): string {
  return randomBytes(16).toString('base64url');
}

function classicIdentity(memberId: string, r: JoinRequest, subscription: ClassicSubscription): Parameters<typeof joiningMember>[0] {
  return {
    memberId,
    instanceId: r.groupInstanceId,
    rackId: subscription.rackId,
    clientId: r.clientId,
    clientHost: r.clientHost,
    rebalanceTimeoutMs: r.rebalanceTimeoutMs,
    subscribedTopicNames: [...subscription.topics],
    subscribedTopicRegex: null,
    serverAssignor: null,
  };
}

function newMember(memberId: string, r: ConsumerHeartbeat): ConsumerMember {
  return joiningMember({
    memberId,
    instanceId: r.instanceId,
    rackId: r.rackId,
    clientId: r.clientId,
    clientHost: r.clientHost,
    rebalanceTimeoutMs: r.rebalanceTimeoutMs,
    subscribedTopicNames: [...(r.subscribedTopicNames ?? [])],
    subscribedTopicRegex: r.subscribedTopicRegex === '' ? null : r.subscribedTopicRegex,
    serverAssignor: r.serverAssignor,
  });
}

function toPartitions(list: readonly TopicAssignment[]): TopicPartitions {
  return new Map(list.map((t) => [t.topicId, new Set(t.partitions)]));
}

function fromPartitions(partitions: TopicPartitions): TopicAssignment[] {
  return [...partitions].filter(([, set]) => set.size > 0).map(([topicId, set]) => ({ topicId, partitions: [...set].sort((a, b) => a - b) }));
}
