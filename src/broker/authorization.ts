/**
 * What each API needs the authorizer to allow, as Kafka's request handlers (`KafkaApis.handle…Request`) check it, in one table.
 * A request refused on its cluster, group or transactional id is answered with the matching
 * error and never handled; topics refused an operation are taken out of the request before the
 * handler sees it and answered TOPIC_AUTHORIZATION_FAILED, each where the answer carries it (the
 * layouts faults use). Checks that depend on what the handler finds (Metadata hiding topics,
 * per-group and per-resource answers, authorized operations) call src/broker/access.ts there.
 */
import { AclOperation as Op, CLUSTER_NAME, ResourceType } from '../acl/acl-binding.js';
import { ApiKey } from '../protocol/messages/apis.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { named, without, type NamedError } from '../faults/request-layouts.js';
import { refusal } from '../faults/refusals.js';
import type { ApiHandler, HandlerResult, RequestInfo } from './api-handler.js';
import type { BrokerContext } from './broker-context.js';
import { mayDo, mayProduceIdempotently } from './access.js';
import { withErrors } from './faulted-request.js';

type Obj = Record<string, unknown>;

/** One check: whether the connection may do `operation` on the resource a request names. */
interface Need {
  readonly resourceType: number;
  readonly operation: number;
  /** The resource's name in the request; null: the request names none, so there is nothing to check. */
  readonly name: (request: Obj) => string | null;
}

/** Every topic the request names, each checked; with `orCluster`, allowed on the cluster, no topic is checked. */
interface TopicNeed {
  readonly operation: number;
  readonly orCluster?: boolean;
}

interface Needs {
  readonly first?: readonly Need[];
  readonly topics?: TopicNeed;
  /** InitProducerId without a transactional id: IDEMPOTENT_WRITE on the cluster or WRITE on some topic. */
  readonly idempotent?: boolean;
  /** The handler asks access.ts itself, since what it checks depends on what it finds. */
  readonly byHandler?: true;
  /** Kafka's `KafkaApis` answers any connection: before authentication, or with a feature brook has off (an error whatever the rights). */
  readonly anyone?: true;
}

const BY_HANDLER: Needs = { byHandler: true };
const ANYONE: Needs = { anyone: true };

const cluster = (operation: number): Need => ({ resourceType: ResourceType.CLUSTER, operation, name: () => CLUSTER_NAME });
const group = (operation: number, field = 'groupId'): Need => ({ resourceType: ResourceType.GROUP, operation, name: (r) => r[field] as string });
const transactionalId = (operation: number): Need => ({
  resourceType: ResourceType.TRANSACTIONAL_ID,
  operation,
  name: (r) => (r.transactionalId as string | null | undefined) ?? null,
});

/** AddPartitionsToTxn: up to v3 a producer's, naming its transactional id; from v4 a broker's batch of several (CLUSTER_ACTION). */
const producersTransactionalId = (operation: number): Need => ({
  resourceType: ResourceType.TRANSACTIONAL_ID,
  operation,
  name: (r) => ((r.transactions as unknown[]).length === 0 ? (r.v3AndBelowTransactionalId as string) : null),
});
const brokersBatch = (operation: number): Need => ({
  resourceType: ResourceType.CLUSTER,
  operation,
  name: (r) => ((r.transactions as unknown[]).length > 0 ? CLUSTER_NAME : null),
});

/** Every API served has a row (a test holds the API table to it), as Kafka's KafkaApis authorizes each request. */
const NEEDS: Readonly<Partial<Record<number, Needs>>> = {
  [ApiKey.ApiVersions]: ANYONE,
  [ApiKey.SaslHandshake]: ANYONE,
  [ApiKey.SaslAuthenticate]: ANYONE,
  [ApiKey.CreateDelegationToken]: ANYONE,
  [ApiKey.RenewDelegationToken]: ANYONE,
  [ApiKey.ExpireDelegationToken]: ANYONE,
  [ApiKey.DescribeDelegationToken]: ANYONE,
  [ApiKey.Metadata]: BY_HANDLER,
  [ApiKey.FindCoordinator]: BY_HANDLER,
  [ApiKey.OffsetFetch]: BY_HANDLER,
  [ApiKey.DescribeGroups]: BY_HANDLER,
  [ApiKey.ListGroups]: BY_HANDLER,
  [ApiKey.DeleteGroups]: BY_HANDLER,
  [ApiKey.ConsumerGroupDescribe]: BY_HANDLER,
  [ApiKey.DeleteTopics]: BY_HANDLER,
  [ApiKey.DescribeTopicPartitions]: BY_HANDLER,
  [ApiKey.OffsetForLeaderEpoch]: BY_HANDLER,
  [ApiKey.DescribeCluster]: BY_HANDLER,
  [ApiKey.DescribeConfigs]: BY_HANDLER,
  [ApiKey.AlterConfigs]: BY_HANDLER,
  [ApiKey.IncrementalAlterConfigs]: BY_HANDLER,
  [ApiKey.DescribeTransactions]: BY_HANDLER,
  [ApiKey.ListTransactions]: BY_HANDLER,
  [ApiKey.AlterReplicaLogDirs]: { first: [cluster(Op.ALTER)] },
  [ApiKey.Produce]: { first: [transactionalId(Op.WRITE)], topics: { operation: Op.WRITE } },
  [ApiKey.Fetch]: { topics: { operation: Op.READ } },
  [ApiKey.ListOffsets]: { topics: { operation: Op.DESCRIBE } },
  [ApiKey.OffsetCommit]: { first: [group(Op.READ)], topics: { operation: Op.READ } },
  [ApiKey.JoinGroup]: { first: [group(Op.READ)] },
  [ApiKey.SyncGroup]: { first: [group(Op.READ)] },
  [ApiKey.Heartbeat]: { first: [group(Op.READ)] },
  [ApiKey.LeaveGroup]: { first: [group(Op.READ)] },
  [ApiKey.OffsetDelete]: { first: [group(Op.DELETE)] },
  [ApiKey.ConsumerGroupHeartbeat]: { first: [group(Op.READ)] },
  [ApiKey.CreateTopics]: { topics: { operation: Op.CREATE, orCluster: true } },
  [ApiKey.CreatePartitions]: { topics: { operation: Op.ALTER } },
  [ApiKey.DeleteRecords]: { topics: { operation: Op.DELETE } },
  [ApiKey.DescribeProducers]: { topics: { operation: Op.READ } },
  [ApiKey.InitProducerId]: { first: [transactionalId(Op.WRITE)], idempotent: true },
  [ApiKey.AddPartitionsToTxn]: { first: [producersTransactionalId(Op.WRITE), brokersBatch(Op.CLUSTER_ACTION)] },
  [ApiKey.AddOffsetsToTxn]: { first: [transactionalId(Op.WRITE), group(Op.READ)] },
  [ApiKey.EndTxn]: { first: [transactionalId(Op.WRITE)] },
  [ApiKey.TxnOffsetCommit]: { first: [transactionalId(Op.WRITE), group(Op.READ)] },
  [ApiKey.WriteTxnMarkers]: { first: [cluster(Op.CLUSTER_ACTION)] },
  [ApiKey.DescribeAcls]: { first: [cluster(Op.DESCRIBE)] },
  [ApiKey.CreateAcls]: { first: [cluster(Op.ALTER)] },
  [ApiKey.DeleteAcls]: { first: [cluster(Op.ALTER)] },
  [ApiKey.DescribeLogDirs]: { first: [cluster(Op.DESCRIBE)] },
  [ApiKey.ElectLeaders]: { first: [cluster(Op.ALTER)] },
  [ApiKey.AlterPartitionReassignments]: { first: [cluster(Op.ALTER)] },
  [ApiKey.ListPartitionReassignments]: { first: [cluster(Op.DESCRIBE)] },
  [ApiKey.DescribeQuorum]: { first: [cluster(Op.DESCRIBE)] },
  [ApiKey.UnregisterBroker]: { first: [cluster(Op.ALTER)] },
  [ApiKey.UpdateFeatures]: { first: [cluster(Op.ALTER)] },
  [ApiKey.AddRaftVoter]: { first: [cluster(Op.ALTER)] },
  [ApiKey.RemoveRaftVoter]: { first: [cluster(Op.ALTER)] },
  [ApiKey.DescribeUserScramCredentials]: { first: [cluster(Op.DESCRIBE)] },
  [ApiKey.AlterUserScramCredentials]: { first: [cluster(Op.ALTER)] },
  [ApiKey.DescribeClientQuotas]: { first: [cluster(Op.DESCRIBE_CONFIGS)] },
  [ApiKey.AlterClientQuotas]: { first: [cluster(Op.ALTER_CONFIGS)] },
  [ApiKey.ListConfigResources]: { first: [cluster(Op.DESCRIBE_CONFIGS)] },
};

const REFUSED: Readonly<Record<number, number>> = {
  [ResourceType.CLUSTER]: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
  [ResourceType.GROUP]: ErrorCode.GROUP_AUTHORIZATION_FAILED,
  [ResourceType.TRANSACTIONAL_ID]: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
};

/** Whether the API has its row in the table, saying who may send it. */
export function hasAuthorizationRow(apiKey: number): boolean {
  return NEEDS[apiKey] !== undefined;
}

/** Whether the table may refuse a whole request of the API (its cluster, group or transactional id). */
export function refusedWhole(apiKey: number): boolean {
  return NEEDS[apiKey]?.first !== undefined;
}

/** The handler with its API's checks before it; the handler itself when the table has none. */
export function guarded(handler: ApiHandler): ApiHandler {
  const apiKey = handler.request.apiKey;
  const needs = NEEDS[apiKey];
  if (needs === undefined || needs.byHandler === true || needs.anyone === true) return handler;
  return {
    ...handler,
    handle(request: unknown, info: RequestInfo, broker: BrokerContext): HandlerResult<unknown> {
      const { connection } = info;
      for (const need of needs.first ?? []) {
        const name = need.name(request as Obj);
        if (name !== null && !mayDo(connection, broker, need.resourceType, name, need.operation))
          return refuse(apiKey, request, REFUSED[need.resourceType]!, info);
      }
      if (needs.idempotent === true && (request as Obj).transactionalId === null && !mayProduceIdempotently(connection, broker)) {
        return refuse(apiKey, request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, info);
      }
      const topics = needs.topics;
      if (topics === undefined) return handler.handle(request, info, broker);
      if (topics.orCluster === true && mayDo(connection, broker, ResourceType.CLUSTER, CLUSTER_NAME, topics.operation, true)) {
        return handler.handle(request, info, broker);
      }
      const names = named(apiKey, request) ?? [];
      const refused = new Set<number>();
      const errors: NamedError[] = [];
      // A topic named again (its partitions, or itself) is judged once.
      const verdicts = new Map<string, boolean>();
      names.forEach((n, i) => {
        let allowed = verdicts.get(n.topic);
        if (allowed === undefined) verdicts.set(n.topic, (allowed = mayDo(connection, broker, ResourceType.TOPIC, n.topic, topics.operation)));
        if (allowed) return;
        refused.add(i);
        errors.push({ ...n, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
      });
      if (refused.size === 0) return handler.handle(request, info, broker);
      return withErrors(handler.handle(without(apiKey, request, refused), info, broker), errors, apiKey, info);
    },
  };
}

/** The refusal, or for a Produce with acks=0, which has no answer to carry it, the connection closed, as Kafka's `KafkaApis.handleProduceRequest` does. */
function refuse(apiKey: number, request: unknown, errorCode: number, info: RequestInfo): unknown {
  if ((request as Obj).acks !== 0) return refusal(apiKey, request, errorCode);
  info.connection.end();
  return undefined;
}
