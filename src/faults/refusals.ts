/**
 * Answers refusing a whole request with one error, as Kafka's `AbstractRequest.getErrorResponse` answers a request it refuses: the
 * request's own error where its answer has one, else an entry carrying the error for each item the
 * request names (topic, partition, group, resource or key). The authorizer refuses requests so, and
 * a fault's error is answered so for APIs whose requests name no topic.
 */
import { API_SCHEMAS, ApiKey } from '../protocol/messages/apis.js';
import type { StructSchema } from '../protocol/messages/codec.js';
import { defaultStruct } from '../protocol/message-defaults.js';
import { ZERO_UUID } from '../protocol/primitives/reader.js';
import { addErrors, fieldStruct, named, requestErrorAnswer } from './request-layouts.js';

type Obj = Record<string, unknown>;
type Refuse = (request: Obj, errorCode: number) => Obj;

/** Where a coordinator or leader is refused, Kafka names no node. */
const NO_NODE = { nodeId: -1, host: '', port: -1 };

/** One entry of the array `field` of `parent`: its schema defaults, then `fields`. */
function entry(parent: StructSchema, field: string, fields: Obj): Obj {
  return { ...defaultStruct(fieldStruct(parent, field)), ...fields };
}

function response(apiKey: number): StructSchema {
  return API_SCHEMAS[apiKey]!.response.schema;
}

/** The answer's array `field`, one entry per item, each with `errorCode` and what `fill` names. */
function each<T>(apiKey: number, field: string, items: readonly T[], fill: (item: T) => Obj, errorCode: number): Obj {
  return { [field]: items.map((item) => entry(response(apiKey), field, { ...fill(item), errorCode })) };
}

/** Configs APIs: one result per resource, named by type and name. */
const perResource =
  (apiKey: number, field: string): Refuse =>
  (r, errorCode) =>
    each(apiKey, field, r.resources as Obj[], (res) => ({ resourceType: res.resourceType, resourceName: res.resourceName, errorMessage: null }), errorCode);

/** Answers of APIs with neither an error of their own in every version nor topics in a layout. */
const REFUSALS: Readonly<Partial<Record<number, Refuse>>> = {
  [ApiKey.CreateAcls]: (r, errorCode) => ({ results: (r.creations as unknown[]).map(() => ({ errorCode, errorMessage: null })) }),
  [ApiKey.DeleteAcls]: (r, errorCode) => ({ filterResults: (r.filters as unknown[]).map(() => ({ errorCode, errorMessage: null, matchingAcls: [] })) }),
  [ApiKey.AlterUserScramCredentials]: (r, errorCode) => ({
    results: [...(r.deletions as Obj[]), ...(r.upsertions as Obj[])].map((c) => ({ user: c.name, errorCode, errorMessage: null })),
  }),
  [ApiKey.AlterClientQuotas]: (r, errorCode) => ({ entries: (r.entries as Obj[]).map((e) => ({ errorCode, errorMessage: null, entity: e.entity })) }),
  // Its request error exists from v4 only; up to v3 each partition carries it.
  [ApiKey.AddPartitionsToTxn]: (r, errorCode) => ({
    errorCode,
    resultsByTopicV3AndBelow: (r.v3AndBelowTopics as Obj[]).map((t) => ({
      name: t.name,
      resultsByPartition: (t.partitions as number[]).map((partitionIndex) => ({ partitionIndex, partitionErrorCode: errorCode })),
    })),
  }),
  [ApiKey.TxnOffsetCommit]: (r, errorCode) => ({
    topics: (r.topics as Obj[]).map((t) => ({
      name: t.name,
      partitions: (t.partitions as Obj[]).map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
    })),
  }),
  [ApiKey.WriteTxnMarkers]: (r, errorCode) => ({
    markers: (r.markers as Obj[]).map((m) => ({
      producerId: m.producerId,
      topics: (m.topics as Obj[]).map((t) => ({
        name: t.name,
        partitions: (t.partitionIndexes as number[]).map((partitionIndex) => ({ partitionIndex, errorCode })),
      })),
    })),
  }),
  // v0-1 carry it per partition, v2-7 as the request's, v8+ per group.
  [ApiKey.OffsetFetch]: (r, errorCode) => {
    const topic = fieldStruct(response(ApiKey.OffsetFetch), 'topics');
    return {
      errorCode,
      topics: ((r.topics as Obj[] | null) ?? []).map((t) => ({
        ...entry(response(ApiKey.OffsetFetch), 'topics', { name: t.name }),
        partitions: (t.partitionIndexes as number[]).map((partitionIndex) =>
          entry(topic, 'partitions', { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode }),
        ),
      })),
      ...each(ApiKey.OffsetFetch, 'groups', r.groups as Obj[], (g) => ({ groupId: g.groupId }), errorCode),
    };
  },
  // v0-3 ask for one key, v4+ for several.
  [ApiKey.FindCoordinator]: (r, errorCode) => ({
    errorCode,
    errorMessage: null,
    ...NO_NODE,
    ...each(ApiKey.FindCoordinator, 'coordinators', r.coordinatorKeys as string[], (key) => ({ key, ...NO_NODE, errorMessage: null }), errorCode),
  }),
  // Topics named by id too, named "" (the answer's name is not nullable before v12), as Kafka's `MetadataRequest.getErrorResponse`.
  [ApiKey.Metadata]: (r, errorCode) => ({
    errorCode,
    topics: ((r.topics as Obj[] | null) ?? []).map((t) =>
      entry(response(ApiKey.Metadata), 'topics', { name: t.name ?? '', topicId: t.topicId, errorCode, isInternal: false, partitions: [] }),
    ),
  }),
  [ApiKey.DescribeGroups]: (r, errorCode) => each(ApiKey.DescribeGroups, 'groups', r.groups as string[], (groupId) => ({ groupId }), errorCode),
  [ApiKey.ConsumerGroupDescribe]: (r, errorCode) =>
    each(ApiKey.ConsumerGroupDescribe, 'groups', r.groupIds as string[], (groupId) => ({ groupId, errorMessage: null }), errorCode),
  [ApiKey.DeleteGroups]: (r, errorCode) => each(ApiKey.DeleteGroups, 'results', r.groupsNames as string[], (groupId) => ({ groupId }), errorCode),
  // v0-5 name topics, v6 name them (or their ids) in entries.
  [ApiKey.DeleteTopics]: (r, errorCode) =>
    each(
      ApiKey.DeleteTopics,
      'responses',
      [...(r.topicNames as string[]).map((name): Obj => ({ name, topicId: ZERO_UUID })), ...(r.topics as Obj[])],
      (t) => ({ name: t.name, topicId: t.topicId, errorMessage: null }),
      errorCode,
    ),
  [ApiKey.DescribeConfigs]: perResource(ApiKey.DescribeConfigs, 'results'),
  [ApiKey.AlterConfigs]: perResource(ApiKey.AlterConfigs, 'responses'),
  [ApiKey.IncrementalAlterConfigs]: perResource(ApiKey.IncrementalAlterConfigs, 'responses'),
  [ApiKey.AlterReplicaLogDirs]: (r, errorCode) => ({
    results: (r.dirs as Obj[]).flatMap((d) =>
      (d.topics as Obj[]).map((t) => ({ topicName: t.name, partitions: (t.partitions as number[]).map((partitionIndex) => ({ partitionIndex, errorCode })) })),
    ),
  }),
  // Its request error exists from v1 only; v0 carries it per partition.
  [ApiKey.ElectLeaders]: (r, errorCode) => ({
    errorCode,
    replicaElectionResults: ((r.topicPartitions as Obj[] | null) ?? []).map((t) => ({
      topic: t.topic,
      partitionResult: (t.partitions as number[]).map((partitionId) => ({ partitionId, errorCode, errorMessage: null })),
    })),
  }),
  // An empty list asks for every topic, so refused topics are answered here, not taken out.
  [ApiKey.DescribeTopicPartitions]: (r, errorCode) => each(ApiKey.DescribeTopicPartitions, 'topics', r.topics as Obj[], (t) => ({ name: t.name }), errorCode),
  // v0-2 have no error: no directory is listed, as Kafka's `DescribeLogDirsRequest.getErrorResponse` answers them refused.
  [ApiKey.DescribeLogDirs]: (_, errorCode) => ({ errorCode, results: [] }),
  [ApiKey.DescribeTransactions]: (r, errorCode) =>
    each(
      ApiKey.DescribeTransactions,
      'transactionStates',
      r.transactionalIds as string[],
      (transactionalId) => ({ transactionalId, producerId: -1n, producerEpoch: -1 }),
      errorCode,
    ),
};

/** The answer refusing the whole request with `errorCode`: each item's, else its own error, else every topic's. */
export function refusal(apiKey: number, request: unknown, errorCode: number): unknown {
  const schema = response(apiKey);
  const custom = REFUSALS[apiKey];
  if (custom !== undefined) return { ...defaultStruct(schema), ...custom(request as Obj, errorCode) };
  const own = schema.fields.some((f) => f.name === 'errorCode');
  const names = named(apiKey, request);
  if (names === undefined && own) return requestErrorAnswer(apiKey, errorCode);
  if (names === undefined) throw new Error(`no way to refuse ${schema.name}`);
  // Where the answer has an error of its own in later versions only (Fetch v7+), each topic carries it too, as Kafka's
  // `FetchRequest.getErrorResponse` answers.
  const answer = own ? (requestErrorAnswer(apiKey, errorCode) as Obj) : defaultStruct(schema);
  addErrors(
    apiKey,
    answer,
    names.map((n) => ({ ...n, errorCode })),
  );
  return answer;
}
