/**
 * What one node of a simulated cluster answers for what it does not lead or coordinate, before any
 * handler sees the request: as Kafka's `ReplicaManager` answers each partition of a broker that
 * is not its leader NOT_LEADER_OR_FOLLOWER (but serves a consumer's Fetch v11+ at a follower,
 * KIP-392), and `KafkaApis` answers a group or transaction request sent to a broker that is not
 * its coordinator NOT_COORDINATOR. Partitions whose in-sync replicas
 * are fewer than `min.insync.replicas` refuse acks=all produces with NOT_ENOUGH_REPLICAS, as
 * `Partition.appendRecordsToLeader` does. The entries it answers are taken out of the request.
 * Answers refusing a partition for its leadership say where its leader is (`leaderHints`).
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { ApiKey } from '../protocol/messages/apis.js';
import { eachAnswered, named, without, type NamedError } from '../faults/request-layouts.js';
import { refusal } from '../faults/refusals.js';
import type { BrokerContext } from './broker-context.js';

type Obj = Record<string, unknown>;

/** APIs a partition's leader serves. */
const LED = new Set<number>([ApiKey.Produce, ApiKey.Fetch, ApiKey.ListOffsets, ApiKey.OffsetForLeaderEpoch, ApiKey.DeleteRecords, ApiKey.DescribeProducers]);

/** acks=all: the write waits for every in-sync replica. */
const ACKS_ALL = -1;

/** From this Fetch version a consumer tells its rack, and may read from a follower (KIP-392). */
const FOLLOWER_FETCH_MIN_VERSION = 11;

/**
 * Whether a Fetch may be served by any replica, not only the leader: a consumer's (replica id
 * below 0) from v11, as Kafka's `FetchParams.fetchOnlyLeader` is false for a consumer whose
 * request carries client metadata (`KafkaApis.handleFetchRequest`, v11+).
 */
function readsFromFollowers(apiKey: number, apiVersion: number, r: Obj): boolean {
  if (apiKey !== ApiKey.Fetch || apiVersion < FOLLOWER_FETCH_MIN_VERSION) return false;
  const replicaId = (r.replicaState as { replicaId: number } | undefined)?.replicaId ?? -1;
  return (r.replicaId as number) < 0 && replicaId < 0;
}

/** The group or transactional ids a coordinator request names, by kind; undefined for other requests. */
function coordinated(apiKey: number, apiVersion: number, r: Obj): { kind: 'group' | 'transaction'; keys: readonly string[] } | undefined {
  switch (apiKey) {
    case ApiKey.JoinGroup:
    case ApiKey.SyncGroup:
    case ApiKey.Heartbeat:
    case ApiKey.LeaveGroup:
    case ApiKey.OffsetCommit:
    case ApiKey.OffsetDelete:
    case ApiKey.TxnOffsetCommit:
      return { kind: 'group', keys: [r.groupId as string] };
    case ApiKey.OffsetFetch:
      return { kind: 'group', keys: apiVersion < 8 ? [r.groupId as string] : (r.groups as Obj[]).map((g) => g.groupId as string) };
    case ApiKey.DescribeGroups:
      return { kind: 'group', keys: r.groups as string[] };
    case ApiKey.DeleteGroups:
      return { kind: 'group', keys: r.groupsNames as string[] };
    case ApiKey.InitProducerId:
      return r.transactionalId === null ? undefined : { kind: 'transaction', keys: [r.transactionalId as string] };
    case ApiKey.AddPartitionsToTxn:
      return {
        kind: 'transaction',
        keys: apiVersion < 4 ? [r.v3AndBelowTransactionalId as string] : (r.transactions as Obj[]).map((t) => t.transactionalId as string),
      };
    case ApiKey.AddOffsetsToTxn:
    case ApiKey.EndTxn:
      return { kind: 'transaction', keys: [r.transactionalId as string] };
    case ApiKey.DescribeTransactions:
      return { kind: 'transaction', keys: r.transactionalIds as string[] };
    default:
      return undefined;
  }
}

export type NodeView =
  /** The whole request refused: this answer is sent. */
  | { readonly answer: unknown }
  /** `request` is handled, and `errors` added to its answer. */
  | { readonly request: unknown; readonly errors: readonly NamedError[] };

/** What this node does with `request`: undefined when it serves all of it. */
export function nodeView(broker: BrokerContext, apiKey: number, apiVersion: number, request: unknown): NodeView | undefined {
  const { cluster, nodeId } = broker;
  const coordinator = coordinated(apiKey, apiVersion, request as Obj);
  if (coordinator !== undefined) {
    const elsewhere = coordinator.keys.some((key) => cluster.coordinator(coordinator.kind, key) !== nodeId);
    return elsewhere ? { answer: refusal(apiKey, request, ErrorCode.NOT_COORDINATOR) } : undefined;
  }
  if (!LED.has(apiKey)) return undefined;
  const acksAll = apiKey === ApiKey.Produce && (request as Obj).acks === ACKS_ALL;
  const followers = readsFromFollowers(apiKey, apiVersion, request as Obj);
  const errors: NamedError[] = [];
  const taken = new Set<number>();
  named(apiKey, request)!.forEach((n, i) => {
    // An unknown topic or partition is the handler's to answer.
    const p = cluster.partition(n.topic, n.partition!);
    if (p === undefined) return;
    let errorCode: number = ErrorCode.NONE;
    // A follower serves what it has (here, the one copy), checking the leader epoch as the leader does.
    if (p.leader !== nodeId && !(followers && p.replicas.includes(nodeId))) errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
    else if (acksAll && cluster.isr(p).length < broker.storage.topicConfig(n.topic)!.minInsyncReplicas) errorCode = ErrorCode.NOT_ENOUGH_REPLICAS;
    if (errorCode === ErrorCode.NONE) return;
    errors.push({ ...n, errorCode });
    taken.add(i);
  });
  return taken.size === 0 ? undefined : { request: without(apiKey, request, taken), errors };
}

/**
 * The answers that tell a client refused for a partition's leadership who leads it now (KIP-951),
 * from which version, and for which errors: as Kafka's `KafkaApis.handleProduceRequest` and
 * `handleFetchRequest` fill them, whichever check gave the error.
 */
const LEADER_HINTS: Readonly<Partial<Record<number, { readonly since: number; readonly errors: ReadonlySet<number> }>>> = {
  [ApiKey.Produce]: { since: 10, errors: new Set([ErrorCode.NOT_LEADER_OR_FOLLOWER]) },
  [ApiKey.Fetch]: { since: 16, errors: new Set([ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.FENCED_LEADER_EPOCH]) },
};

/**
 * Gives each partition `response` refuses for its leadership its current leader and epoch (-1 and
 * -1 for a partition no longer there), and the answer the leaders' endpoints, so that the client
 * goes to the new leader without asking for metadata: as Kafka's `KafkaApis.getCurrentLeader`,
 * the endpoint of a leader that is live.
 */
export function leaderHints(broker: BrokerContext, apiKey: number, apiVersion: number, response: unknown): void {
  const hints = LEADER_HINTS[apiKey];
  if (hints === undefined || apiVersion < hints.since) return;
  const { cluster } = broker;
  // Made only for an answer with a partition to hint: most have none.
  let endpoints: Map<number, { nodeId: number; host: string; port: number; rack: null }> | undefined;
  eachAnswered(apiKey, response, (topic, partition, entry) => {
    if (!hints.errors.has(entry.errorCode as number)) return;
    const p = cluster.partition(topic, partition);
    entry.currentLeader = { leaderId: p?.leader ?? -1, leaderEpoch: p?.epoch ?? -1 };
    if (p !== undefined && cluster.leadership.isLive(p.leader)) (endpoints ??= new Map()).set(p.leader, { ...cluster.address(p.leader), rack: null });
  });
  if (endpoints !== undefined) (response as Obj).nodeEndpoints = [...endpoints.values()];
}
