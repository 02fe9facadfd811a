/**
 * A consumer group of the KIP-848 protocol, pure: no timers, no files, no wire. The group epoch
 * counts changes of membership, subscriptions and the subscribed topics' partitions; the target
 * assignment is the assignor's answer at an epoch; each member reaches it on its own heartbeats
 * (reconciliation, the aims of Kafka's `CurrentAssignmentBuilder`):
 *
 * - a partition the target takes from a member stays the member's, pending revocation, until a
 *   heartbeat shows the member no longer owns it; only then may another member be given it;
 * - the member moves to the target's epoch once it owns nothing pending revocation, and takes the
 *   target's partitions no other member still owns; the rest follow as their owners release them.
 *
 * So a partition is never owned by two members at once, and once every member has heartbeated
 * past its revocations the group is Stable with every subscribed partition assigned.
 *
 * A member of the classic protocol (in a group converted from a classic group, or joining one with
 * JoinGroup) reconciles by the same steps: its rejoin says what it owns, so it releases by
 * rejoining, and its heartbeat asks it to rejoin when a step waits on it (`mustRejoin`).
 */
import type { Assignor, AssignorMember, TopicPartitions } from './assignors.js';

export type MemberState = 'stable' | 'unrevoked_partitions' | 'unreleased_partitions';

/** A group's state as ListGroups and ConsumerGroupDescribe show it (Kafka's `ConsumerGroup.ConsumerGroupState`). */
export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable';

/** A static member that left for a while keeps its place and partitions with this epoch. */
export const LEAVE_STATIC_EPOCH = -2;

export interface Subscription {
  /** null: unchanged (a heartbeat that does not repeat it). */
  readonly topicNames: readonly string[] | null;
  readonly topicRegex: string | null;
  readonly serverAssignor: string | null;
}

/** One of the protocols a classic member listed in its JoinGroup, with its metadata. */
export interface ClassicProtocol {
  readonly name: string;
  readonly metadata: Buffer;
}

/** What a member of the classic protocol adds (Kafka's `ClassicMemberMetadata`). */
export interface ClassicMemberMetadata {
  readonly sessionTimeoutMs: number;
  /** In the member's order: the first is the one its JoinGroup and SyncGroup are answered with. */
  readonly supportedProtocols: readonly ClassicProtocol[];
}

export interface ConsumerMember {
  readonly memberId: string;
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  memberEpoch: number;
  previousMemberEpoch: number;
  state: MemberState;
  /** What the member owns and may keep. */
  assigned: TopicPartitions;
  /** What the member still owns but must give up. */
  pendingRevocation: TopicPartitions;
  /**
   * topic id → partition → the member epoch at which it was given the partition, for everything it
   * owns: a commit at any epoch from then to now is its own (KIP-1251's assignment epochs).
   */
  assignmentEpochs: Map<string, Map<number, number>>;
  /** null for a member of the consumer protocol. */
  classic: ClassicMemberMetadata | null;
}

/** What a member says of itself when it joins. */
export type MemberIdentity = Pick<
  ConsumerMember,
  'memberId' | 'instanceId' | 'rackId' | 'clientId' | 'clientHost' | 'rebalanceTimeoutMs' | 'subscribedTopicNames' | 'subscribedTopicRegex' | 'serverAssignor'
>;

/** A member joining: epoch 0, owning nothing. */
export function joiningMember(identity: MemberIdentity, classic: ClassicMemberMetadata | null = null): ConsumerMember {
  return {
    ...identity,
    classic,
    memberEpoch: 0,
    previousMemberEpoch: -1,
    state: 'stable',
    assigned: new Map(),
    pendingRevocation: new Map(),
    assignmentEpochs: new Map(),
  };
}

/** The subscribed topics as the broker knows them: id → name and partition count. */
export interface TopicImage {
  readonly byName: ReadonlyMap<string, { readonly topicId: string; readonly partitions: number }>;
  /** Changes whenever a topic is created, deleted or gains partitions. */
  readonly key: string;
}

export class ConsumerGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ConsumerMember>();
  /** instance id → member id. */
  readonly staticMembers = new Map<string, string>();
  /** member id → its target assignment at `assignmentEpoch`. */
  readonly target = new Map<string, TopicPartitions>();
  /** Topic id → partition count of the subscribed topics at `groupEpoch`: a change of it is a new epoch. */
  subscribedPartitions = new Map<string, number>();
  /** topic id → partition → the member owning it (assigned or pending revocation). */
  private readonly owners = new Map<string, Map<number, string>>();
  /** The group epoch and topics the subscriptions were last resolved at: while both stand, a heartbeat resolves nothing. */
  private resolvedAt: { epoch: number; key: string } | undefined;

  constructor(readonly groupId: string) {}

  /**
   * A classic group's members taken over as they are (Kafka's `ConsumerGroup.fromClassicGroup`): the group
   * and its target at the classic generation, each member Stable at it, owning and aimed at what its
   * last SyncGroup gave it.
   */
  static fromClassic(groupId: string, generation: number, members: readonly ConsumerMember[], image: TopicImage): ConsumerGroup {
    const group = new ConsumerGroup(groupId);
    group.groupEpoch = group.assignmentEpoch = generation;
    for (const member of members) {
      group.restoreMember(member);
      group.target.set(member.memberId, copy(member.assigned));
      for (const name of member.subscribedTopicNames) {
        const topic = image.byName.get(name);
        if (topic !== undefined) group.subscribedPartitions.set(topic.topicId, topic.partitions);
      }
    }
    return group;
  }

  state(): ConsumerGroupState {
    if (this.members.size === 0) return 'Empty';
    if (this.assignmentEpoch !== this.groupEpoch) return 'Assigning';
    for (const m of this.members.values()) if (m.memberEpoch !== this.assignmentEpoch || m.state !== 'stable') return 'Reconciling';
    return 'Stable';
  }

  /** The member owning a partition, assigned or pending revocation. */
  owner(topicId: string, partition: number): string | undefined {
    return this.owners.get(topicId)?.get(partition);
  }

  /**
   * Whether a classic member's heartbeat must ask it to rejoin (Kafka's
   * `classicGroupHeartbeatToConsumerGroup`): the group moved past its epoch, it has partitions to
   * give up, or partitions it waits for are free now.
   */
  mustRejoin(member: ConsumerMember): boolean {
    return (
      member.memberEpoch < this.groupEpoch ||
      member.state === 'unrevoked_partitions' ||
      (member.state === 'unreleased_partitions' && !this.waitingOnUnreleased(member))
    );
  }

  /**
   * Whether a classic member's SyncGroup comes too late (Kafka's `throwIfRebalanceInProgress`): the group
   * moved past its epoch, and it is not still giving partitions up (a rejoin after that catches up).
   */
  rebalancedSince(member: ConsumerMember): boolean {
    return this.groupEpoch > member.memberEpoch && member.state !== 'unrevoked_partitions';
  }

  /** Whether a partition of the member's target is still owned by another member. */
  private waitingOnUnreleased(member: ConsumerMember): boolean {
    for (const [topic, partitions] of this.target.get(member.memberId) ?? []) {
      for (const p of partitions) if (member.assigned.get(topic)?.has(p) !== true && this.owner(topic, p) !== undefined) return true;
    }
    return false;
  }

  /**
   * Kafka's `ConsumerGroup.supportsClassicProtocols`: a classic member may join if its protocol type is
   * the consumer protocol's and one of its protocols is supported by every classic member already in.
   */
  supportsClassicProtocols(protocolType: string, protocols: readonly string[], consumerProtocolType: string): boolean {
    if (protocolType !== consumerProtocolType) return false;
    if (this.members.size === 0) return protocols.length > 0;
    const classic = [...this.members.values()].flatMap((m) => (m.classic === null ? [] : [m.classic]));
    return protocols.some((name) => classic.every((c) => c.supportedProtocols.some((p) => p.name === name)));
  }

  /** Whether every member but those named is of the classic protocol (Kafka's `allMembersUseClassicProtocolExcept`). */
  onlyClassicBesides(memberIds: ReadonlySet<string>): boolean {
    for (const m of this.members.values()) if (!memberIds.has(m.memberId) && m.classic === null) return false;
    return true;
  }

  /** A new member at epoch 0, owning nothing; the group's epoch moves on. */
  addMember(member: ConsumerMember): void {
    this.members.set(member.memberId, member);
    if (member.instanceId !== null) this.staticMembers.set(member.instanceId, member.memberId);
    this.groupEpoch++;
  }

  /** A member as stored: its partitions owned again, no epoch moved. */
  restoreMember(member: ConsumerMember): void {
    this.members.set(member.memberId, member);
    if (member.instanceId !== null) this.staticMembers.set(member.instanceId, member.memberId);
    this.own(member.memberId, member.assigned);
    this.own(member.memberId, member.pendingRevocation);
  }

  /** Changes a member's subscription; a change moves the group's epoch on. */
  subscribe(member: ConsumerMember, subscription: Subscription): void {
    let changed = false;
    if (subscription.topicNames !== null && !sameList(subscription.topicNames, member.subscribedTopicNames)) {
      member.subscribedTopicNames = [...subscription.topicNames];
      changed = true;
    }
    // '' is no regex, as null is in the member.
    const regex = subscription.topicRegex === '' ? null : subscription.topicRegex;
    if (subscription.topicRegex !== null && regex !== member.subscribedTopicRegex) {
      member.subscribedTopicRegex = regex;
      changed = true;
    }
    if (subscription.serverAssignor !== null && subscription.serverAssignor !== member.serverAssignor) {
      member.serverAssignor = subscription.serverAssignor;
      changed = true;
    }
    if (changed) this.groupEpoch++;
  }

  /** The member goes and its partitions are free; the group's epoch moves on. */
  removeMember(memberId: string): void {
    const member = this.members.get(memberId);
    if (member === undefined) return;
    this.disown(memberId, member.assigned);
    this.disown(memberId, member.pendingRevocation);
    this.members.delete(memberId);
    this.target.delete(memberId);
    if (member.instanceId !== null && this.staticMembers.get(member.instanceId) === memberId) this.staticMembers.delete(member.instanceId);
    this.groupEpoch++;
  }

  /**
   * A static member back under a new member id takes the place of the one that left: its epoch,
   * partitions and target, without a new group epoch (Kafka's static member replacement).
   */
  replaceStatic(old: ConsumerMember, next: ConsumerMember): void {
    this.disown(old.memberId, old.assigned);
    this.disown(old.memberId, old.pendingRevocation);
    this.members.delete(old.memberId);
    const target = this.target.get(old.memberId);
    this.target.delete(old.memberId);
    next.memberEpoch = old.previousMemberEpoch;
    next.previousMemberEpoch = old.previousMemberEpoch;
    next.state = old.state;
    next.assigned = old.assigned;
    next.pendingRevocation = old.pendingRevocation;
    next.assignmentEpochs = old.assignmentEpochs;
    this.members.set(next.memberId, next);
    if (target !== undefined) this.target.set(next.memberId, target);
    if (next.instanceId !== null) this.staticMembers.set(next.instanceId, next.memberId);
    this.own(next.memberId, next.assigned);
    this.own(next.memberId, next.pendingRevocation);
  }

  /** The topic ids a member subscribes to, by name or by regex, of the topics that exist. */
  subscribedTopics(member: ConsumerMember, image: TopicImage, matches: (regex: string, topic: string) => boolean): Set<string> {
    const ids = new Set<string>();
    for (const name of member.subscribedTopicNames) {
      const topic = image.byName.get(name);
      if (topic !== undefined) ids.add(topic.topicId);
    }
    if (member.subscribedTopicRegex !== null) {
      for (const [name, topic] of image.byName) if (matches(member.subscribedTopicRegex, name)) ids.add(topic.topicId);
    }
    return ids;
  }

  /**
   * Moves the epoch on when the subscribed topics' partitions changed (a topic created that a
   * regex matches, partitions added, a topic deleted), then computes a new target assignment if
   * the group's epoch is ahead of it.
   */
  refreshTarget(image: TopicImage, assignor: Assignor, matches: (regex: string, topic: string) => boolean): void {
    if (this.resolvedAt?.epoch === this.groupEpoch && this.resolvedAt.key === image.key && this.assignmentEpoch === this.groupEpoch) return;
    const subscriptions = new Map<string, Set<string>>();
    const counts = new Map<string, number>();
    const byId = new Map([...image.byName.values()].map((t) => [t.topicId, t.partitions]));
    for (const m of this.members.values()) {
      const topics = this.subscribedTopics(m, image, matches);
      subscriptions.set(m.memberId, topics);
      for (const id of topics) counts.set(id, byId.get(id)!);
    }
    if (!sameCounts(counts, this.subscribedPartitions)) {
      this.subscribedPartitions = counts;
      this.groupEpoch++;
    }
    this.resolvedAt = { epoch: this.groupEpoch, key: image.key };
    if (this.assignmentEpoch === this.groupEpoch) return;
    const members: AssignorMember[] = [...this.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      topics: subscriptions.get(m.memberId)!,
    }));
    const next = assignor({ members, partitionCounts: counts, previous: this.target });
    this.target.clear();
    for (const [memberId, partitions] of next) this.target.set(memberId, partitions);
    this.assignmentEpoch = this.groupEpoch;
  }

  /**
   * One step of the member's reconciliation towards the target, given what its heartbeat says it
   * owns (null: it did not say). Returns whether the member changed.
   */
  reconcile(member: ConsumerMember, owned: TopicPartitions | null): boolean {
    if (member.state === 'unrevoked_partitions') {
      // Until the member shows it gave up what it must, it stays where it is (Kafka's `ownsRevokedPartitions`, true when unknown).
      if (owned === null || intersects(owned, member.pendingRevocation)) return false;
      this.release(member, member.pendingRevocation);
      member.pendingRevocation = new Map();
      member.state = 'stable';
      this.next(member, owned);
      return true;
    }
    if (member.memberEpoch === this.assignmentEpoch && member.state === 'stable') return false;
    return this.next(member, owned);
  }

  /**
   * Kafka's `CurrentAssignmentBuilder.computeNextAssignment`: revoke first, then move to the target's epoch.
   * Partitions to revoke that a classic member's rejoin shows it no longer owns are released at once
   * (Kafka's `ownsRevokedPartitions`): a JoinGroup comes from a member that takes nothing new until its
   * SyncGroup. A consumer-protocol member releases them by its next heartbeat instead, since the list
   * it sends may predate an answer on its way to it.
   */
  private next(member: ConsumerMember, owned: TopicPartitions | null): boolean {
    const target = this.target.get(member.memberId) ?? new Map<string, Set<number>>();
    const keep: TopicPartitions = new Map();
    const revoke: TopicPartitions = new Map();
    for (const [topic, partitions] of member.assigned) {
      for (const p of partitions) add(target.get(topic)?.has(p) === true ? keep : revoke, topic, p);
    }
    if (size(revoke) > 0 && owned !== null && member.classic !== null && !intersects(owned, revoke)) {
      this.release(member, revoke);
      member.assigned = keep;
    } else if (size(revoke) > 0) {
      const changed = !sameAssignment(member.assigned, keep) || member.state !== 'unrevoked_partitions';
      member.assigned = keep;
      member.pendingRevocation = revoke;
      member.state = 'unrevoked_partitions';
      return changed;
    }
    let unreleased = false;
    const assigned: TopicPartitions = new Map();
    for (const [topic, partitions] of target) {
      for (const p of partitions) {
        const owner = this.owner(topic, p);
        if (owner === undefined || owner === member.memberId) add(assigned, topic, p);
        else unreleased = true;
      }
    }
    const state: MemberState = unreleased ? 'unreleased_partitions' : 'stable';
    const changed = member.memberEpoch !== this.assignmentEpoch || member.state !== state || !sameAssignment(member.assigned, assigned);
    this.own(member.memberId, assigned);
    for (const [topic, partitions] of assigned) {
      let epochs = member.assignmentEpochs.get(topic);
      if (epochs === undefined) member.assignmentEpochs.set(topic, (epochs = new Map()));
      for (const p of partitions) if (!epochs.has(p)) epochs.set(p, this.assignmentEpoch);
    }
    member.assigned = assigned;
    if (member.memberEpoch !== this.assignmentEpoch) {
      member.previousMemberEpoch = member.memberEpoch;
      member.memberEpoch = this.assignmentEpoch;
    }
    member.state = state;
    return changed;
  }

  /** The member no longer owns these partitions: others may be given them. */
  private release(member: ConsumerMember, partitions: TopicPartitions): void {
    this.disown(member.memberId, partitions);
    for (const [topic, set] of partitions) for (const p of set) member.assignmentEpochs.get(topic)?.delete(p);
  }

  private own(memberId: string, partitions: TopicPartitions): void {
    for (const [topic, set] of partitions) {
      let owners = this.owners.get(topic);
      if (owners === undefined) this.owners.set(topic, (owners = new Map()));
      for (const p of set) owners.set(p, memberId);
    }
  }

  private disown(memberId: string, partitions: TopicPartitions): void {
    for (const [topic, set] of partitions) {
      const owners = this.owners.get(topic);
      for (const p of set) if (owners?.get(p) === memberId) owners.delete(p);
    }
  }
}

/**
 * Whether a commit by the member at `epoch` may be taken for the partition (Kafka's assignment
 * epoch check, KIP-1251): the member owns it, and the epoch lies between the one that gave it the
 * partition and its own, so a commit that left before an answer moved the member on still counts.
 */
export function mayCommit(member: ConsumerMember, epoch: number, topicId: string, partition: number): boolean {
  if (epoch === member.memberEpoch) return true;
  const since = member.assignmentEpochs.get(topicId)?.get(partition);
  return since !== undefined && since <= epoch && epoch <= member.memberEpoch;
}

export function add(partitions: TopicPartitions, topic: string, partition: number): void {
  let set = partitions.get(topic);
  if (set === undefined) partitions.set(topic, (set = new Set()));
  set.add(partition);
}

export function size(partitions: TopicPartitions): number {
  let n = 0;
  for (const set of partitions.values()) n += set.size;
  return n;
}

export function sameAssignment(a: TopicPartitions, b: TopicPartitions): boolean {
  if (size(a) !== size(b)) return false;
  for (const [topic, set] of a) for (const p of set) if (b.get(topic)?.has(p) !== true) return false;
  return true;
}

/** Whether every partition of `a` is in `b`. */
export function isSubset(a: TopicPartitions, b: TopicPartitions): boolean {
  for (const [topic, set] of a) for (const p of set) if (b.get(topic)?.has(p) !== true) return false;
  return true;
}

function copy(partitions: TopicPartitions): TopicPartitions {
  return new Map([...partitions].map(([topic, set]) => [topic, new Set(set)]));
}

function intersects(a: TopicPartitions, b: TopicPartitions): boolean {
  for (const [topic, set] of a) for (const p of set) if (b.get(topic)?.has(p) === true) return true;
  return false;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  const sa = [...a].sort();
  const sb = [...b].sort();
  return sa.length === sb.length && sa.every((v, i) => v === sb[i]);
}

function sameCounts(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}
