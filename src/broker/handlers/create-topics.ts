/**
 * CreateTopics: replicas on the nodes served, as many as live (one copy stored); -1 partitions means num.partitions. Checked as Kafka's
 * `ControllerApis.createTopics` and `ReplicationControlManager.createTopics` check, validateOnly alike: a name given twice in one request is INVALID_REQUEST and created
 * not at all; configs must be Kafka's topic configs with values they take, and are the topic's
 * own from then on, stored with it.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { CreateTopicsRequest, CreateTopicsResponse, type CreateTopicsRequestCreatableTopic } from '../../protocol/messages/create-topics.js';
import { ZERO_UUID } from '../../protocol/primitives/reader.js';
import { MAX_PARTITIONS, TopicCollisionError, TopicExistsError } from '../../log/storage.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';
import { answerEachNamedOnce } from '../named-once.js';
import { assignmentProblem } from '../replica-assignments.js';
import { topicConfigEntries } from '../topic-configs.js';
import { topicConfigProblem, topicConfigsProblem } from '../../settings/topic-configs.js';
import { topicNameProblem } from '../../log/topic-name.js';
import { storageFailure } from '../storage-error.js';

type Result = CreateTopicsResponse['topics'][number];
type Refusal = readonly [errorCode: number, errorMessage: string];

export const createTopics = defineApi({
  request: CreateTopicsRequest,
  response: CreateTopicsResponse,
  minVersion: 0,
  maxVersion: 7,
  async handle(request, _info, broker): Promise<CreateTopicsResponse> {
    const topics = await answerEachNamedOnce(
      request.topics,
      (t) => t.name,
      (t) => create(broker, t, request.validateOnly),
      (t) => failure(t.name, [ErrorCode.INVALID_REQUEST, 'Duplicate topic name.']),
    );
    return { throttleTimeMs: 0, topics };
  },
});

function failure(name: string, [errorCode, errorMessage]: Refusal): Result {
  return { name, topicId: ZERO_UUID, errorCode, errorMessage, numPartitions: -1, replicationFactor: -1, configs: null };
}

async function create(broker: BrokerContext, t: CreateTopicsRequestCreatableTopic, validateOnly: boolean): Promise<Result> {
  const partitions = t.assignments.length > 0 ? t.assignments.length : t.numPartitions === -1 ? broker.config.partitions : t.numPartitions;
  const refusal = refusalOf(broker, t, partitions);
  if (refusal !== undefined) return failure(t.name, refusal);
  let topicId = ZERO_UUID;
  // Kafka's default.replication.factor is 1; manual assignments give their own.
  const replicationFactor = t.assignments.length > 0 ? t.assignments[0]!.brokerIds.length : t.replicationFactor === -1 ? 1 : t.replicationFactor;
  const own = Object.fromEntries(t.configs.flatMap(({ name, value }) => (value === null ? [] : [[name, value.trim()]])));
  if (!validateOnly) {
    try {
      const topic = await broker.storage.createTopic(t.name, partitions, own);
      topicId = topic.topicId;
      await broker.cluster.created(
        topic,
        replicationFactor,
        t.assignments.map((a) => a.brokerIds),
      );
    } catch (err) {
      if (err instanceof TopicExistsError) return failure(t.name, [ErrorCode.TOPIC_ALREADY_EXISTS, err.message]);
      if (err instanceof TopicCollisionError) return failure(t.name, [ErrorCode.INVALID_TOPIC_EXCEPTION, err.message]);
      return failure(t.name, [storageFailure(broker.logger, err, { topic: t.name }, 'creating a topic failed'), (err as Error).message]);
    }
    broker.logger.info({ topic: t.name, partitions }, 'topic created');
  }
  const configs = topicConfigEntries(broker.dynamicConfigs, own).map(({ name, value, configSource }) => ({
    name,
    value,
    configSource,
    readOnly: false,
    isSensitive: false,
  }));
  return { name: t.name, topicId, errorCode: ErrorCode.NONE, errorMessage: null, numPartitions: partitions, replicationFactor, configs };
}

/** Why the topic cannot be created as asked, if it cannot. */
function refusalOf(broker: BrokerContext, t: CreateTopicsRequestCreatableTopic, partitions: number): Refusal | undefined {
  const nameProblem = topicNameProblem(t.name);
  if (nameProblem !== undefined) return [ErrorCode.INVALID_TOPIC_EXCEPTION, nameProblem];
  if (broker.storage.topic(t.name) !== undefined) return [ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${t.name}' already exists.`];
  const colliding = broker.storage.collidingTopic(t.name);
  if (colliding !== undefined) return [ErrorCode.INVALID_TOPIC_EXCEPTION, new TopicCollisionError(t.name, colliding).message];
  if (t.assignments.length > 0) {
    if (t.numPartitions !== -1 || t.replicationFactor !== -1) {
      return [ErrorCode.INVALID_REQUEST, 'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.'];
    }
    const problem = topicAssignmentProblem(t.assignments, broker.cluster.leadership.nodes);
    if (problem !== undefined) return [ErrorCode.INVALID_REPLICA_ASSIGNMENT, problem];
  }
  if (partitions < 1 || partitions > MAX_PARTITIONS)
    return [ErrorCode.INVALID_PARTITIONS, `Number of partitions must be between 1 and ${MAX_PARTITIONS}, not ${partitions}.`];
  if (t.replicationFactor === 0 || t.replicationFactor < -1)
    return [ErrorCode.INVALID_REPLICATION_FACTOR, `Replication factor must be larger than 0, or -1 to use the default.`];
  const registered = broker.cluster.leadership.live().length;
  if (t.replicationFactor > registered) {
    // As Kafka's `StripedReplicaPlacer` refuses it, over the nodes not stopped or isolated.
    return [
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Unable to replicate the partition ${t.replicationFactor} time(s): The target replication factor of ${t.replicationFactor} cannot be reached because only ${registered} broker(s) are registered.`,
    ];
  }
  for (const { name, value } of t.configs) {
    if (value === null) return [ErrorCode.INVALID_REQUEST, `Null value not supported for topic configs: ${name}`];
    const problem = topicConfigProblem(name, value);
    if (problem !== undefined) return [ErrorCode.INVALID_CONFIG, problem];
  }
  const conflict = topicConfigsProblem(broker.config, Object.fromEntries(t.configs.map(({ name, value }) => [name, value!.trim()])));
  if (conflict !== undefined) return [ErrorCode.INVALID_CONFIG, conflict];
  return undefined;
}

/** Manual assignments are accepted as Kafka's `ReplicationControlManager.createTopic` accepts them: partitions 0, 1, 2, …, each on nodes served. */
function topicAssignmentProblem(assignments: CreateTopicsRequestCreatableTopic['assignments'], nodes: readonly number[]): string | undefined {
  const indexes = new Set(assignments.map((a) => a.partitionIndex));
  if (indexes.size !== assignments.length || assignments.some((a) => a.partitionIndex < 0 || a.partitionIndex >= assignments.length)) {
    return 'partitions should be a consecutive 0-based integer sequence';
  }
  return assignmentProblem(assignments, assignments.length, nodes);
}
