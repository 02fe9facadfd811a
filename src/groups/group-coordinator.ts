/**
 * The coordinator of every group on this broker (Kafka's classic group protocol): it finds the
 * group and member a request names, answers with Kafka's errors when they do not check out, and
 * hands the rest to the Rebalancer. Committed offsets go through here too, so that a commit is
 * checked against the member and generation, and a group known only by its offsets still lists.
 */
import { isIoError } from '../files/io-error.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { ClassicGroup, EMPTY_ASSIGNMENT, joinError, syncError, type GroupState, type JoinOutcome, type Member, type SyncOutcome } from './classic-group.js';
import type { GroupStore } from './group-store.js';
import { openOffsetsTopic } from './offsets-topic.js';
import { CoordinatorLogNotWritten, type CoordinatorLog } from '../protocol/coordinator-log.js';
import type { OffsetStore, CommittedOffset, GroupOffsets, PartitionOffset, TopicPartition } from './offset-store.js';
import type { OffsetStoreLog } from './offset-store-log.js';
import { CONSUMER_PROTOCOL_TYPE } from './consumer-protocol.js';
import { Rebalancer, type JoinRequest, type MemberIdentity, type RebalanceOptions } from './rebalancer.js';
import { timerScheduler, type Cancel } from './scheduler.js';
import { ConsumerCoordinator, type ConsumerGroupOptions, type ConsumerHeartbeat, type ConsumerHeartbeatOutcome } from './consumer-coordinator.js';
import type { ConsumerGroup, ConsumerGroupState, TopicImage } from './consumer-group.js';
import { downgradeEnabled, toClassicGroup, toConsumerGroup, upgradeRefusal } from './group-conversion.js';

export interface CoordinatorOptions extends RebalanceOptions {
  /** group.min.session.timeout.ms and group.max.session.timeout.ms */
  readonly minSessionTimeoutMs: number;
  readonly maxSessionTimeoutMs: number;
  /** offsets.retention.check.interval.ms: how often expired offsets, and Empty groups without offsets, are removed. */
  readonly cleanupIntervalMs: number;
  /** offsets.retention.minutes, in ms. */
  readonly offsetsRetentionMs: number;
  /** The time, ms since the epoch. */
  readonly now: () => number;
  readonly log: OffsetStoreLog;
  /** Consumer-protocol groups' settings (group.consumer.*). */
  readonly consumer: Omit<ConsumerGroupOptions, 'scheduler' | 'topics' | 'onStoreError' | 'onlyClassicLeft'>;
  /** The topics as the broker has them now, which consumer groups subscribe to. */
  readonly topics: () => TopicImage;
}

const DEFAULT_OPTIONS: Omit<CoordinatorOptions, 'log'> = {
  scheduler: timerScheduler,
  initialRebalanceDelayMs: 100,
  newMemberJoinTimeoutMs: 300_000,
  minSessionTimeoutMs: 6000,
  maxSessionTimeoutMs: 1_800_000,
  cleanupIntervalMs: 600_000,
  offsetsRetentionMs: 7 * 24 * 3_600_000,
  now: Date.now,
  consumer: { sessionTimeoutMs: 45_000, heartbeatIntervalMs: 5000, maxSize: 2 ** 31 - 1, assignors: ['uniform', 'range'], migrationPolicy: 'bidirectional' },
  topics: () => ({ byName: new Map(), key: '' }),
};

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

export interface LeaveOutcome {
  readonly errorCode: number;
  readonly members: (MemberIdentity & { readonly errorCode: number })[];
}

export interface CommitRequest extends MemberRequest {
  readonly offsets: readonly PartitionOffset[];
  /** OffsetCommit v9+ reports an unknown group as GROUP_ID_NOT_FOUND. */
  readonly apiVersion: number;
}

/** OffsetDelete's answer: the group's error, else one error per partition asked about, in order. */
export interface OffsetDeleteOutcome {
  readonly errorCode: number;
  readonly partitionErrors: readonly number[];
}

export interface GroupListing {
  readonly groupId: string;
  readonly protocolType: string;
  readonly state: GroupState | ConsumerGroupState;
  /** Kafka's group types: `classic` or `consumer`. */
  readonly groupType: 'classic' | 'consumer';
}

export interface GroupDescription extends Omit<GroupListing, 'groupType' | 'state'> {
  readonly state: GroupState;
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
  /**
   * Groups joined since the start, kept when Empty (with their generation and protocol type) until
   * the cleanup finds them without offsets; a group known only by its offsets lists as Empty.
   */
  private readonly groups = new Map<string, ClassicGroup>();
  private readonly rebalancer: Rebalancer;
  /** The consumer-protocol groups, in the same namespace of group ids. */
  readonly consumer: ConsumerCoordinator;
  private cancelCleanup: Cancel | undefined;
  private closed = false;

  constructor(
    private readonly offsetStore: OffsetStore,
    private readonly groupStore: GroupStore,
    private readonly options: CoordinatorOptions,
  ) {
    this.rebalancer = new Rebalancer(options, (group) => groupStore.put(group));
    this.consumer = new ConsumerCoordinator(groupStore, {
      ...options.consumer,
      scheduler: options.scheduler,
      topics: options.topics,
      onStoreError: (group, err) => options.log.error({ group, err }, 'consumer group not stored'),
      onlyClassicLeft: (group, generation, rebalance) => this.downgrade(group, generation, rebalance),
    });
    // As Kafka's `GroupCoordinator.onGroupLoaded` after loading its groups: each member has a session from now to show it is still there.
    for (const group of groupStore.takeGroups()) {
      this.groups.set(group.groupId, group);
      for (const member of group.members.values()) this.rebalancer.keepAlive(group, member);
    }
    this.scheduleCleanup();
  }

  static async open(
    dataDir: string,
    offsetsLog: CoordinatorLog,
    options: Partial<CoordinatorOptions> & Pick<CoordinatorOptions, 'log'>,
  ): Promise<GroupCoordinator> {
    const resolved = { ...DEFAULT_OPTIONS, ...options };
    const { offsets, groups } = await openOffsetsTopic(dataDir, offsetsLog, {
      report: resolved.log,
      now: resolved.now,
      onGroupError: (group, err) => resolved.log.error({ group, err }, 'group tombstones not written'),
    });
    return new GroupCoordinator(offsets, groups, resolved);
  }

  join(request: JoinRequest): Promise<JoinOutcome> {
    const { groupId, memberId } = request;
    if (this.closed) return Promise.resolve(joinError(memberId, ErrorCode.NOT_COORDINATOR));
    if (groupId === '') return Promise.resolve(joinError(memberId, ErrorCode.INVALID_GROUP_ID));
    if (request.sessionTimeoutMs < this.options.minSessionTimeoutMs || request.sessionTimeoutMs > this.options.maxSessionTimeoutMs) {
      return Promise.resolve(joinError(memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
    }
    const consumerGroup = this.consumer.groups.get(groupId);
    if (consumerGroup !== undefined) {
      // As Kafka's `classicGroupJoin`: a consumer group with members takes the classic member as one of its own; an Empty one becomes classic.
      if (consumerGroup.members.size > 0) return this.consumer.classicJoin(consumerGroup, request);
      this.consumer.discard(groupId);
    }
    let group = this.groups.get(groupId);
    const created = group === undefined;
    if (group === undefined) {
      if (memberId !== '') return Promise.resolve(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      group = new ClassicGroup(groupId, this.options.now);
      this.groups.set(groupId, group);
    }
    const outcome = this.rebalancer.join(group, request);
    // A group made for a join that was refused (no protocol type or protocols) never had a member: it is not kept.
    if (created && group.is('Empty') && group.pendingMembers.size === 0) this.groups.delete(groupId);
    return outcome;
  }

  sync(request: SyncRequest): Promise<SyncOutcome> {
    const consumerGroup = this.consumerGroupOf(request);
    if (consumerGroup !== undefined) return Promise.resolve(this.consumer.classicSync(consumerGroup, request));
    const found = this.findMember(request);
    if (typeof found === 'number') return Promise.resolve(syncError(found));
    const { group, member } = found;
    const inconsistent = (asked: string | null, chosen: string | null) => asked !== null && chosen !== null && asked !== chosen;
    if (inconsistent(request.protocolType, group.protocolType) || inconsistent(request.protocolName, group.protocolName)) {
      return Promise.resolve(syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    return this.rebalancer.sync(group, member, request.assignments);
  }

  /**
   * ConsumerGroupHeartbeat, as Kafka's `getOrMaybeCreateConsumerGroup`: an Empty classic group's id becomes a
   * consumer group's; a classic group with members becomes a consumer group with them when a member
   * joins (the online upgrade, if `group.consumer.migration.policy` allows), else it is not a consumer group.
   */
  consumerHeartbeat(request: ConsumerHeartbeat): Promise<ConsumerHeartbeatOutcome> {
    const outcome = (errorCode: number, errorMessage: string | null = null): Promise<ConsumerHeartbeatOutcome> =>
      Promise.resolve({ errorCode, errorMessage, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null });
    if (this.closed) return outcome(ErrorCode.NOT_COORDINATOR);
    const refusal = this.consumer.refusal(request);
    if (refusal !== undefined) return Promise.resolve(refusal);
    const classic = this.groups.get(request.groupId);
    if (classic !== undefined) {
      if (this.removable(classic) || (classic.is('Empty') && classic.pendingMembers.size === 0)) {
        this.discard(classic);
      } else {
        if (request.memberEpoch !== 0) return outcome(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${request.groupId} is not a consumer group.`);
        const refused = upgradeRefusal(this.options.consumer.migrationPolicy, classic, this.options.consumer.maxSize);
        if (refused !== undefined) return outcome(ErrorCode.GROUP_ID_NOT_FOUND, refused);
        // Kafka converts and then refuses the member, writing neither: the group stays classic.
        if (classic.members.size >= this.options.consumer.maxSize) return outcome(ErrorCode.GROUP_MAX_SIZE_REACHED);
        const converted = toConsumerGroup(classic, this.options.topics());
        if (typeof converted === 'string') return outcome(ErrorCode.GROUP_ID_NOT_FOUND, converted);
        // Members waiting on a join or sync rejoin, now as members of the consumer group (Kafka's `convertToConsumerGroup`).
        for (const member of classic.members.values()) {
          member.completeJoin(joinError(member.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
          member.completeSync(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
        }
        // Stored as a consumer group by the join's write, which replaces the classic group's entry.
        this.letGo(classic);
        this.consumer.adopt(converted);
        this.options.log.info({ group: request.groupId, members: converted.members.size }, 'classic group upgraded to a consumer group');
      }
    }
    return this.consumer.heartbeat(request);
  }

  /**
   * The online downgrade (Kafka's `convertToClassicGroup`): a consumer group left with classic
   * members only becomes a classic group at `generation`, if `group.consumer.migration.policy`
   * allows, and rebalances (if asked) so that they rejoin and their leader assigns.
   */
  private downgrade(consumerGroup: ConsumerGroup, generation: number, rebalance: boolean): Promise<void> | undefined {
    if (this.closed || !downgradeEnabled(this.options.consumer.migrationPolicy)) return undefined;
    const group = toClassicGroup(consumerGroup, generation, this.options.topics(), this.options.now);
    this.consumer.drop(consumerGroup);
    this.groups.set(group.groupId, group);
    for (const member of group.members.values()) this.rebalancer.keepAlive(group, member);
    this.options.log.info({ group: group.groupId, members: group.members.size }, 'consumer group downgraded to a classic group');
    if (rebalance) this.rebalancer.rebalance(group);
    // One write replaces the consumer group's entry.
    return this.groupStore.put(group);
  }

  /** The consumer group a classic member's request names, unless a classic group holds the id. */
  private consumerGroupOf(request: MemberRequest): ConsumerGroup | undefined {
    if (this.closed || request.groupId === '' || this.groups.has(request.groupId)) return undefined;
    return this.consumer.groups.get(request.groupId);
  }

  /** The consumer group of that id, or the error ConsumerGroupDescribe gives for it, as Kafka's `GroupMetadataManager.consumerGroupDescribe`. */
  consumerGroup(groupId: string): ConsumerGroup | { errorCode: number; errorMessage: string } {
    const group = this.consumer.groups.get(groupId);
    if (group !== undefined) return group;
    const message = this.groups.has(groupId) ? `Group ${groupId} is not a consumer group.` : `Group ${groupId} not found.`;
    return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: message };
  }

  /** OffsetFetch v9's check of the member named: a consumer group's member must be there at its epoch. */
  fetchError(groupId: string, memberId: string | null, memberEpoch: number): number {
    const group = this.consumer.groups.get(groupId);
    if (group === undefined || (memberId === null && memberEpoch < 0)) return ErrorCode.NONE;
    return this.consumer.memberEpochError(group, memberId, memberEpoch);
  }

  heartbeat(request: MemberRequest): number {
    const consumerGroup = this.consumerGroupOf(request);
    if (consumerGroup !== undefined) return this.consumer.classicHeartbeat(consumerGroup, request);
    const found = this.findMember(request);
    return typeof found === 'number' ? found : this.rebalancer.heartbeat(found.group, found.member);
  }

  leave(groupId: string, identities: readonly MemberIdentity[]): LeaveOutcome {
    if (this.closed) return { errorCode: ErrorCode.NOT_COORDINATOR, members: [] };
    if (groupId === '') return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    const group = this.groups.get(groupId);
    const consumerGroup = this.consumer.groups.get(groupId);
    const errors =
      group !== undefined
        ? this.rebalancer.leave(group, identities)
        : consumerGroup !== undefined
          ? this.consumer.classicLeave(consumerGroup, identities)
          : identities.map(() => ErrorCode.UNKNOWN_MEMBER_ID);
    return { errorCode: ErrorCode.NONE, members: identities.map((identity, i) => ({ ...identity, errorCode: errors[i]! })) };
  }

  async commitOffsets(request: CommitRequest): Promise<number> {
    const error = this.commitError(request);
    if (error !== ErrorCode.NONE) return error;
    try {
      await this.offsetStore.commit(request.groupId, request.offsets, this.options.now());
      return ErrorCode.NONE;
    } catch (err) {
      if (err instanceof CoordinatorLogNotWritten) return err.errorCode;
      if (!isIoError(err)) throw err;
      this.options.log.error({ group: request.groupId, err }, 'offset commit not stored');
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    }
  }

  /**
   * TxnOffsetCommit's check of the group, as Kafka's `GroupCoordinator.handleTxnCommitOffsets`: a member named must be in the group, a
   * generation given must be the group's; a group unknown takes the commit.
   */
  txnCommitError(groupId: string, generationId: number, memberId: string, groupInstanceId: string | null): number {
    if (this.closed) return ErrorCode.NOT_COORDINATOR;
    if (groupId === '') return ErrorCode.INVALID_GROUP_ID;
    const consumerGroup = this.consumer.groups.get(groupId);
    if (consumerGroup !== undefined) {
      if (memberId === '' && generationId < 0) return ErrorCode.NONE;
      // Older producers know a stale generation, not a stale member epoch.
      const error = this.consumer.memberEpochError(consumerGroup, memberId, generationId);
      return error === ErrorCode.STALE_MEMBER_EPOCH ? ErrorCode.ILLEGAL_GENERATION : error;
    }
    const group = this.groups.get(groupId);
    if (group === undefined) return ErrorCode.NONE;
    if (memberId !== '' || groupInstanceId !== null) {
      const error = group.validateMember(memberId, groupInstanceId);
      if (error !== ErrorCode.NONE) return error;
    }
    return generationId >= 0 && generationId !== group.generationId ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.NONE;
  }

  /** Offsets a transaction committed: they become the group's, whoever is in it now. */
  storeOffsets(groupId: string, offsets: readonly PartitionOffset[]): Promise<void> {
    return this.offsetStore.commit(groupId, offsets, this.options.now());
  }

  /**
   * As Kafka's `GroupCoordinator.onPartitionsDeleted` does when a topic is deleted, every group forgets its offsets there, so a topic made
   * again under that name is read from where the group's reset policy says, not the old offsets.
   */
  async deleteTopicOffsets(topic: string): Promise<void> {
    try {
      await this.offsetStore.deleteTopic(topic);
    } catch (err) {
      this.options.log.error({ topic, err }, 'offsets of a deleted topic not removed');
    }
  }

  /**
   * Removes the offsets of every topic `exists` does not know: those of a delete whose offset
   * removal failed or was cut short by a stop, or made before deletes removed offsets.
   */
  async deleteOffsetsOfMissingTopics(exists: (topic: string) => boolean): Promise<void> {
    const topics = new Set(this.offsetStore.groupIds().flatMap((groupId) => [...(this.offsetStore.offsets(groupId)?.keys() ?? [])]));
    for (const topic of topics) if (!exists(topic)) await this.deleteTopicOffsets(topic);
  }

  committedOffsets(groupId: string): GroupOffsets | undefined {
    return this.offsetStore.offsets(groupId);
  }

  /** Rebalances since the start, by protocol: classic ones completed, and consumer groups' epochs moved on. */
  rebalances(): { readonly classic: number; readonly consumer: number } {
    return { classic: this.rebalancer.completedRebalances, consumer: this.consumer.rebalanceCount };
  }

  /** Committed offsets held, one per group and partition (Kafka's NumOffsets). */
  offsetCount(): number {
    let n = 0;
    for (const groupId of this.offsetStore.groupIds()) for (const partitions of this.offsetStore.offsets(groupId)?.values() ?? []) n += partitions.size;
    return n;
  }

  list(): GroupListing[] {
    const listings: GroupListing[] = [...this.groups.values()].map((g) => ({
      groupId: g.groupId,
      protocolType: g.protocolType ?? '',
      state: g.state,
      groupType: 'classic',
    }));
    for (const g of this.consumer.groups.values())
      listings.push({ groupId: g.groupId, protocolType: CONSUMER_PROTOCOL_TYPE, state: g.state(), groupType: 'consumer' });
    for (const groupId of this.offsetStore.groupIds()) {
      if (!this.groups.has(groupId) && !this.consumer.groups.has(groupId)) listings.push({ groupId, protocolType: '', state: 'Empty', groupType: 'classic' });
    }
    return listings;
  }

  describe(groupId: string): GroupDescription {
    const group = this.groups.get(groupId);
    if (group === undefined) {
      // A consumer group is not a classic group: DescribeGroups up to v5 shows it Dead, as Kafka's `GroupMetadataManager.describeGroups`.
      const state = this.offsetStore.has(groupId) && !this.consumer.groups.has(groupId) ? 'Empty' : 'Dead';
      return { groupId, protocolType: '', state, protocolData: '', members: [] };
    }
    // As Kafka's `GroupMetadata.summary`, metadata and assignments are shown only while they are settled.
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
    const consumerGroup = this.consumer.groups.get(groupId);
    if (consumerGroup !== undefined) {
      if (consumerGroup.members.size > 0) return ErrorCode.NON_EMPTY_GROUP;
      this.consumer.discard(groupId);
    }
    const group = this.groups.get(groupId);
    if (group !== undefined && !group.is('Empty')) return ErrorCode.NON_EMPTY_GROUP;
    if (group === undefined && consumerGroup === undefined && !this.offsetStore.has(groupId)) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (group !== undefined) this.discard(group);
    if (!this.offsetStore.has(groupId)) return ErrorCode.NONE;
    try {
      await this.offsetStore.deleteGroup(groupId);
      this.options.log.info({ group: groupId }, 'group deleted');
      return ErrorCode.NONE;
    } catch (err) {
      if (err instanceof CoordinatorLogNotWritten) return err.errorCode;
      if (!isIoError(err)) throw err;
      this.options.log.error({ group: groupId, err }, 'group deletion not stored');
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    }
  }

  /**
   * Kafka's OffsetDelete: an Empty group (or one known only by its offsets) loses the offsets of
   * every partition named; a consumer group with members keeps those of topics its members
   * subscribe to (GROUP_SUBSCRIBED_TO_TOPIC) and loses the rest; any other group with members is
   * NON_EMPTY_GROUP. A group left Empty without offsets goes, as in Kafka.
   */
  async deleteOffsets(groupId: string, partitions: readonly TopicPartition[]): Promise<OffsetDeleteOutcome> {
    const refused = (errorCode: number): OffsetDeleteOutcome => ({ errorCode, partitionErrors: [] });
    if (this.closed) return refused(ErrorCode.NOT_COORDINATOR);
    if (groupId === '') return refused(ErrorCode.INVALID_GROUP_ID);
    const group = this.groups.get(groupId);
    if (group === undefined && !this.offsetStore.has(groupId)) return refused(ErrorCode.GROUP_ID_NOT_FOUND);
    let subscribed = (_topic: string): boolean => false;
    const consumerGroup = this.consumer.groups.get(groupId);
    if (consumerGroup !== undefined && consumerGroup.members.size > 0) {
      const image = this.options.topics();
      const ids = new Set([...consumerGroup.members.values()].flatMap((m) => [...consumerGroup.subscribedTopics(m, image, this.consumer.matches)]));
      subscribed = (topic) => ids.has(image.byName.get(topic)?.topicId ?? '');
    } else if (group !== undefined && !group.is('Empty')) {
      if (group.protocolType !== CONSUMER_PROTOCOL_TYPE) return refused(ErrorCode.NON_EMPTY_GROUP);
      const topics = group.subscribedTopics();
      subscribed = (topic) => topics === undefined || topics.has(topic);
    }
    const partitionErrors = partitions.map((p) => (subscribed(p.topic) ? ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC : ErrorCode.NONE));
    const deleted = partitions.filter((_, i) => partitionErrors[i] === ErrorCode.NONE);
    if (deleted.length > 0 && this.offsetStore.has(groupId)) {
      try {
        await this.offsetStore.deleteOffsets(groupId, deleted);
      } catch (err) {
        if (err instanceof CoordinatorLogNotWritten) return refused(err.errorCode);
        if (!isIoError(err)) throw err;
        this.options.log.error({ group: groupId, err }, 'offset deletion not stored');
        return refused(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      }
      this.options.log.info({ group: groupId, partitions: deleted.length }, 'group offsets deleted');
    }
    const current = this.groups.get(groupId);
    if (current !== undefined && this.removable(current)) this.discard(current);
    return { errorCode: ErrorCode.NONE, partitionErrors };
  }

  /**
   * Answers every waiting JoinGroup and SyncGroup, stops the timers, and finishes writing offsets
   * and membership; the groups stay stored as their last rebalance left them.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelCleanup?.();
    for (const group of this.groups.values()) {
      for (const member of group.members.values()) {
        member.completeJoin(joinError(member.memberId, ErrorCode.NOT_COORDINATOR));
        member.completeSync(syncError(ErrorCode.NOT_COORDINATOR));
      }
      group.cancelTimers();
    }
    this.groups.clear();
    this.consumer.close();
    await Promise.all([this.offsetStore.close(), this.groupStore.close()]);
  }

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
    const consumerGroup = this.consumer.groups.get(groupId);
    if (consumerGroup !== undefined) {
      if (generationId < 0 && memberId === '' && consumerGroup.members.size === 0) return ErrorCode.NONE;
      // As Kafka's `ConsumerGroup.validateOffsetCommit`: members of the consumer protocol commit with v9 or later, naming their epoch.
      if (consumerGroup.members.get(memberId)?.classic === null && request.apiVersion < 9) return ErrorCode.UNSUPPORTED_VERSION;
      return this.consumer.memberEpochError(consumerGroup, memberId, generationId, request.offsets);
    }
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
    if (member !== undefined) this.rebalancer.keepAlive(group, member);
    return ErrorCode.NONE;
  }

  /**
   * Kafka's periodic cleanup (offsets.retention.check.interval.ms): expired offsets are removed,
   * and an Empty group with no offsets (unless a member id handed out is still to be used), so
   * the groups kept stay bounded by how many join per interval.
   */
  private scheduleCleanup(): void {
    this.cancelCleanup = this.options.scheduler.schedule(this.options.cleanupIntervalMs, () => {
      this.expireOffsets();
      for (const group of [...this.groups.values()]) if (this.removable(group)) this.discard(group);
      for (const group of [...this.consumer.groups.values()]) {
        if (group.members.size === 0 && !this.offsetStore.has(group.groupId)) this.consumer.discard(group.groupId);
      }
      this.scheduleCleanup();
    });
  }

  /** Empty, without offsets, and no member id handed out still to be used. */
  private removable(group: ClassicGroup): boolean {
    return group.is('Empty') && group.pendingMembers.size === 0 && !this.offsetStore.has(group.groupId);
  }

  /**
   * Kafka's offset expiry since 2.1 (KIP-211): every offset of an Empty group goes once the group
   * has been Empty for offsets.retention.minutes; a group without a protocol (one that only
   * commits) loses each offset that long after its commit. A group left Empty without offsets
   * goes too. A group with a change on its way is looked at again at the next check.
   */
  private expireOffsets(): void {
    const now = this.options.now();
    for (const groupId of this.offsetStore.groupIds()) {
      // A consumer group's offsets are kept while it has members; once Empty, each goes that long after its commit.
      if ((this.consumer.groups.get(groupId)?.members.size ?? 0) > 0) continue;
      const since = this.expiresFrom(this.groups.get(groupId));
      if (since === undefined || this.offsetStore.hasPending(groupId)) continue;
      const expired: TopicPartition[] = [];
      for (const [topic, partitions] of this.offsetStore.offsets(groupId)!) {
        for (const [partition, committed] of partitions) if (now - since(committed) >= this.options.offsetsRetentionMs) expired.push({ topic, partition });
      }
      if (expired.length === 0) continue;
      void this.offsetStore.deleteOffsets(groupId, expired).then(
        () => {
          this.options.log.info({ group: groupId, partitions: expired.length }, 'committed offsets expired');
          const group = this.groups.get(groupId);
          if (group !== undefined && this.removable(group)) this.discard(group);
        },
        (err: Error) => this.options.log.error({ group: groupId, err }, 'expired offsets not removed'),
      );
    }
  }

  /** What the group's offsets expire counting from; undefined while they do not (it has members). */
  private expiresFrom(group: ClassicGroup | undefined): ((committed: CommittedOffset) => number) | undefined {
    if (group === undefined || group.protocolType === null) return (committed) => committed.commitTimestamp;
    if (!group.is('Empty')) return undefined;
    // Unknown for a group stored before brook kept it: then, as Kafka's `GroupMetadata.removeExpiredOffsets` with such a group, each commit's time.
    const emptySince = group.currentStateTimestamp;
    return (committed) => emptySince ?? committed.commitTimestamp;
  }

  private discard(group: ClassicGroup): void {
    this.letGo(group);
    this.groupStore.remove(group.groupId);
  }

  /** The group is no longer served here; what is stored of it is left to what replaces it. */
  private letGo(group: ClassicGroup): void {
    group.cancelTimers();
    group.transitionTo('Dead');
    this.groups.delete(group.groupId);
  }
}
