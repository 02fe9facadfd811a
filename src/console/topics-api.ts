/** The Topics view's data: the topics, each partition's offsets and files (and leader and replicas, with several nodes), configs; creating and deleting topics through the CreateTopics and DeleteTopics handlers. */
import type { BrokerContext } from '../broker/broker-context.js';
import { createTopics } from '../broker/handlers/create-topics.js';
import { deleteTopics } from '../broker/handlers/delete-topics.js';
import { incrementalAlterConfigs } from '../broker/handlers/incremental-alter-configs.js';
import { topicConfigsForPeople } from '../broker/topic-configs.js';
import { segmentUsage } from '../log/log-dir-usage.js';
import type { TopicInfo } from '../log/storage.js';
import { ZERO_UUID } from '../protocol/primitives/reader.js';
import { isInternalTopic } from '../settings/internal-topics.js';
import { ApiError, matching, page, wholeNumber } from './api-input.js';
import { consoleRequestInfo } from './console-request.js';
import { transactionHoldingLso } from './open-transactions.js';
import { RecordCounter } from './record-counts.js';
import { refuseError } from './kafka-answer.js';

/** The topics matching the search, a page of them; Kafka's internal topics that match, apart (two at most). */
export async function listTopics(broker: BrokerContext, query: URLSearchParams): Promise<unknown> {
  const found = matching(broker.storage.topics(), (t) => t.name, query);
  const shown = page(
    found.filter((t) => !isInternalTopic(t.name)),
    query,
  );
  const counter = new RecordCounter();
  const items = await summaries(broker, counter, shown.items);
  const internal = await summaries(
    broker,
    counter,
    found.filter((t) => isInternalTopic(t.name)),
  );
  return { ...shown, items, internal };
}

async function summaries(broker: BrokerContext, counter: RecordCounter, topics: readonly TopicInfo[]): Promise<unknown[]> {
  const items = [];
  for (const t of topics) {
    let messages = 0;
    let exact = true;
    for (let i = 0; i < t.partitions; i++) {
      const log = broker.storage.partition(t.name, i);
      if (log === undefined) continue;
      const count = await counter.count(log);
      messages += count.records;
      exact &&= count.exact;
    }
    items.push({ name: t.name, topicId: t.topicId, partitions: t.partitions, messages, exact });
  }
  return items;
}

export async function describeTopic(broker: BrokerContext, name: string, query: URLSearchParams): Promise<unknown> {
  const topic = topicNamed(broker, name);
  const shown = page(
    Array.from({ length: topic.partitions }, (_, i) => i),
    query,
  );
  const partitions = await Promise.all(
    shown.items.map(async (partition) => {
      const log = broker.storage.partition(name, partition);
      if (log === undefined) return { partition, gone: true };
      const usage = (await segmentUsage(log.dir)) ?? { bytes: 0, segments: 0 };
      // A simulated cluster's leader and replicas, as Metadata reports them.
      const placed = broker.cluster.simulated ? broker.cluster.describe(topic, partition) : undefined;
      return {
        partition,
        ...(placed === undefined ? {} : { leader: placed.leaderId, leaderEpoch: placed.leaderEpoch, replicas: placed.replicaNodes, isr: placed.isrNodes }),
        logStartOffset: log.logStartOffset,
        logEndOffset: log.logEndOffset,
        highWatermark: log.highWatermark,
        lastStableOffset: log.lastStableOffset,
        holdingLso: transactionHoldingLso(broker, log),
        sizeBytes: usage.bytes,
        segments: usage.segments,
        failed: log.failed,
      };
    }),
  );
  const configs = topicConfigsForPeople(broker.dynamicConfigs, topic.configs);
  return {
    name,
    topicId: topic.topicId,
    internal: isInternalTopic(name),
    partitionCount: topic.partitions,
    nodes: broker.cluster.simulated ? broker.cluster.leadership.nodes.length : 1,
    partitions: { ...shown, items: partitions },
    configs,
  };
}

export async function createTopic(broker: BrokerContext, body: unknown, remoteAddress: string): Promise<unknown> {
  const fields = body as { name?: unknown; partitions?: unknown; configs?: unknown } | null;
  if (typeof fields?.name !== 'string') throw new ApiError(400, 'name must be a string');
  const partitions = fields.partitions === undefined ? -1 : wholeNumber(String(fields.partitions), 'partitions', 1, 100_000);
  const configs = fields.configs ?? {};
  if (typeof configs !== 'object' || configs === null || Object.values(configs).some((v) => typeof v !== 'string'))
    throw new ApiError(400, 'configs must be an object of strings');
  const answer = await createTopics.handle(
    {
      topics: [
        {
          name: fields.name,
          numPartitions: partitions,
          replicationFactor: -1,
          assignments: [],
          configs: Object.entries(configs as Record<string, string>).map(([name, value]) => ({ name, value })),
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    },
    consoleRequestInfo(createTopics.maxVersion, remoteAddress),
    broker,
  );
  const result = answer!.topics[0]!;
  refuseError(result.errorCode, result.errorMessage);
  return { name: result.name, topicId: result.topicId, partitions: result.numPartitions };
}

export async function deleteTopic(broker: BrokerContext, name: string, remoteAddress: string): Promise<unknown> {
  const answer = await deleteTopics.handle(
    { topics: [{ name, topicId: ZERO_UUID }], topicNames: [], timeoutMs: 30_000 },
    consoleRequestInfo(deleteTopics.maxVersion, remoteAddress),
    broker,
  );
  const result = answer!.responses[0]!;
  refuseError(result.errorCode, result.errorMessage);
  return { name };
}

/** Kafka's ConfigResource.Type of a topic, and IncrementalAlterConfigs' SET and DELETE. */
const TOPIC_RESOURCE = 2;
const SET = 0;
const DELETE = 1;

/** Sets one of a topic's configs (`{name, value}`), or with a null value deletes its own, through the IncrementalAlterConfigs handler. */
export async function alterTopicConfig(broker: BrokerContext, topic: string, body: unknown, remoteAddress: string): Promise<unknown> {
  const fields = body as { name?: unknown; value?: unknown } | null;
  if (typeof fields?.name !== 'string') throw new ApiError(400, 'name must be a string');
  if (fields.value !== null && typeof fields.value !== 'string') throw new ApiError(400, 'value must be a string, or null for the default');
  topicNamed(broker, topic);
  const answer = await incrementalAlterConfigs.handle(
    {
      resources: [
        {
          resourceType: TOPIC_RESOURCE,
          resourceName: topic,
          configs: [{ name: fields.name, configOperation: fields.value === null ? DELETE : SET, value: fields.value }],
        },
      ],
      validateOnly: false,
    },
    consoleRequestInfo(incrementalAlterConfigs.maxVersion, remoteAddress),
    broker,
  );
  const result = answer!.responses[0]!;
  refuseError(result.errorCode, result.errorMessage);
  return { name: fields.name, value: fields.value };
}

export function topicNamed(broker: BrokerContext, name: string): TopicInfo {
  const topic = broker.storage.topic(name);
  if (topic === undefined) throw new ApiError(404, `no topic named ${JSON.stringify(name)}`);
  return topic;
}
