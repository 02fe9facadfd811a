/** CreatePartitions: grows topics by partitions this broker leads; a name asked for twice is refused. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../../protocol/messages/create-partitions.js';
import { InvalidPartitionsError, partitionIncreaseProblem } from '../../log/storage.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';
import { answerEachNamedOnce } from '../named-once.js';
import { assignmentProblem } from '../replica-assignments.js';
import { internalTopicRefusal } from '../internal-topic-refusals.js';
import { storageFailure } from '../storage-error.js';

type Wanted = CreatePartitionsRequest['topics'][number];
type Result = CreatePartitionsResponse['results'][number];

export const createPartitions = defineApi({
  request: CreatePartitionsRequest,
  response: CreatePartitionsResponse,
  minVersion: 0,
  maxVersion: 3,
  async handle(request, _info, broker): Promise<CreatePartitionsResponse> {
    const results = await answerEachNamedOnce(
      request.topics,
      (t) => t.name,
      (t) => growTopic(broker, t, request.validateOnly),
      (t) => result(t.name, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'),
    );
    return { throttleTimeMs: 0, results };
  },
});

/** Checked here as Kafka's `ReplicationControlManager.createPartitions` orders its checks; storage checks the count again when the change's turn comes. */
async function growTopic(broker: BrokerContext, t: Wanted, validateOnly: boolean): Promise<Result> {
  const topic = broker.storage.topic(t.name);
  if (topic === undefined) return unknownTopic(t.name);
  const internal = internalTopicRefusal('createPartitions', t.name);
  if (internal !== undefined) return result(t.name, internal.errorCode, internal.message);
  const countProblem = partitionIncreaseProblem(topic, t.count);
  if (countProblem !== undefined) return result(t.name, ErrorCode.INVALID_PARTITIONS, countProblem);
  const assignmentsProblem = t.assignments === null ? undefined : assignmentProblem(t.assignments, t.count - topic.partitions, broker.cluster.leadership.nodes);
  if (assignmentsProblem !== undefined) return result(t.name, ErrorCode.INVALID_REPLICA_ASSIGNMENT, assignmentsProblem);
  if (validateOnly) return result(t.name, ErrorCode.NONE, null);
  try {
    if ((await broker.storage.createPartitions(t.name, t.count)) === undefined) return unknownTopic(t.name);
  } catch (err) {
    if (err instanceof InvalidPartitionsError) return result(t.name, ErrorCode.INVALID_PARTITIONS, err.message);
    return result(t.name, storageFailure(broker.logger, err, { topic: t.name }, 'creating partitions failed'), (err as Error).message);
  }
  broker.logger.info({ topic: t.name, partitions: t.count }, 'partitions created');
  return result(t.name, ErrorCode.NONE, null);
}

function unknownTopic(name: string): Result {
  return result(name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
}

function result(name: string, errorCode: number, errorMessage: string | null): Result {
  return { name, errorCode, errorMessage };
}
