/**
 * The server-side assignors of the consumer group protocol (KIP-848), `group.consumer.assignors`:
 * `uniform` and `range`, as Kafka's `UniformAssignor` and `RangeAssignor` are named. Both are pure:
 * the members' subscriptions, the partitions of the topics they subscribe to and the target
 * assignment before give the target assignment after. Topics are keyed by topic id.
 */
import { ASSIGNORS as ASSIGNOR_NAMES, type AssignorName } from '../settings/kinds.js';

export type { AssignorName };

/** Topic id → partitions. */
export type TopicPartitions = Map<string, Set<number>>;

export interface AssignorMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  /** Topic ids, already resolved from names and the regex. */
  readonly topics: ReadonlySet<string>;
}

export interface AssignmentSpec {
  /** In the order the group holds them. */
  readonly members: readonly AssignorMember[];
  /** Topic id → partition count, for every topic a member subscribes to that exists. */
  readonly partitionCounts: ReadonlyMap<string, number>;
  /** The target assignment before this one: what stickiness keeps. */
  readonly previous: ReadonlyMap<string, TopicPartitions>;
}

export type Assignor = (spec: AssignmentSpec) => Map<string, TopicPartitions>;

/**
 * Every partition to one subscribed member, as evenly as subscriptions allow, keeping each
 * partition where the previous target put it while that keeps the balance (the aims of Kafka's
 * `UniformAssignor`; its two builders are one greedy walk here). With the same subscriptions
 * everywhere, members' counts differ by one at most.
 */
export const uniform: Assignor = (spec) => {
  const load = new Map<string, number>(spec.members.map((m) => [m.memberId, 0]));
  const owner = new Map<string, Map<number, string>>();
  const result = emptyResult(spec);
  const give = (memberId: string, topic: string, partition: number): void => {
    let owners = owner.get(topic);
    if (owners === undefined) owner.set(topic, (owners = new Map()));
    const before = owners.get(partition);
    if (before !== undefined) {
      result.get(before)!.get(topic)!.delete(partition);
      load.set(before, load.get(before)! - 1);
    }
    owners.set(partition, memberId);
    const mine = result.get(memberId)!;
    let set = mine.get(topic);
    if (set === undefined) mine.set(topic, (set = new Set()));
    set.add(partition);
    load.set(memberId, load.get(memberId)! + 1);
  };
  const subscribers = topicSubscribers(spec);
  // Stickiness: each partition stays with the member the previous target gave it, if still subscribed.
  for (const m of spec.members) {
    for (const [topic, partitions] of spec.previous.get(m.memberId) ?? []) {
      const count = spec.partitionCounts.get(topic);
      if (count === undefined || !m.topics.has(topic)) continue;
      for (const p of [...partitions].sort((a, b) => a - b)) if (p < count) give(m.memberId, topic, p);
    }
  }
  const leastLoaded = (candidates: readonly string[]): string => candidates.reduce((best, id) => (load.get(id)! < load.get(best)! ? id : best), candidates[0]!);
  // Every partition left goes to the least loaded of its subscribers.
  for (const [topic, count] of sortedTopics(spec.partitionCounts)) {
    const candidates = subscribers.get(topic) ?? [];
    if (candidates.length === 0) continue;
    for (let p = 0; p < count; p++) if (owner.get(topic)?.get(p) === undefined) give(leastLoaded(candidates), topic, p);
  }
  // Balance: a partition moves from a member to one of its subscribers with two fewer, until none can.
  // Each move lowers the sum of squared loads, so the walk ends.
  for (let moved = true; moved;) {
    moved = false;
    for (const [topic, count] of sortedTopics(spec.partitionCounts)) {
      const candidates = subscribers.get(topic) ?? [];
      for (let p = 0; p < count && candidates.length > 1; p++) {
        const from = owner.get(topic)!.get(p)!;
        const to = leastLoaded(candidates);
        if (load.get(to)! + 1 < load.get(from)!) {
          give(to, topic, p);
          moved = true;
        }
      }
    }
  }
  return result;
};

/**
 * Each topic's partitions in ranges, in the order of its subscribers (by instance id, else member
 * id): the first `count % n` take one more, as Kafka's `RangeAssignor` splits them. Not sticky:
 * a change of members may move a range.
 */
export const range: Assignor = (spec) => {
  const result = emptyResult(spec);
  const key = (m: AssignorMember): string => m.instanceId ?? m.memberId;
  for (const [topic, count] of sortedTopics(spec.partitionCounts)) {
    const members = spec.members.filter((m) => m.topics.has(topic)).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    const n = members.length;
    if (n === 0) continue;
    let next = 0;
    members.forEach((m, i) => {
      const size = Math.floor(count / n) + (i < count % n ? 1 : 0);
      if (size === 0) return;
      const set = new Set<number>();
      for (let k = 0; k < size; k++) set.add(next++);
      result.get(m.memberId)!.set(topic, set);
    });
  }
  return result;
};

export const ASSIGNORS: Readonly<Record<AssignorName, Assignor>> = { uniform, range };

export function isAssignorName(name: string): name is AssignorName {
  return (ASSIGNOR_NAMES as readonly string[]).includes(name);
}

function emptyResult(spec: AssignmentSpec): Map<string, TopicPartitions> {
  return new Map(spec.members.map((m) => [m.memberId, new Map()]));
}

function topicSubscribers(spec: AssignmentSpec): Map<string, string[]> {
  const subscribers = new Map<string, string[]>();
  for (const m of spec.members) {
    for (const topic of m.topics) {
      if (!spec.partitionCounts.has(topic)) continue;
      let list = subscribers.get(topic);
      if (list === undefined) subscribers.set(topic, (list = []));
      list.push(m.memberId);
    }
  }
  return subscribers;
}

/** In topic id order, so that the same input gives the same assignment. */
function sortedTopics(counts: ReadonlyMap<string, number>): [string, number][] {
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
