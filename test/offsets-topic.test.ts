import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker } from '../src/broker/start-broker.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../src/protocol/messages/describe-configs.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../src/protocol/messages/find-coordinator.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { WireClient } from './helpers/wire-client.js';

const OFFSETS = '__consumer_offsets';

async function offsetsTopicPartitions(c: WireClient): Promise<number | undefined> {
  const res = await c.request(MetadataRequest, MetadataResponse, 12, {
    topics: [{ topicId: ZERO_UUID, name: OFFSETS }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  const topic = res.topics[0]!;
  return topic.errorCode === 0 ? topic.partitions.length : undefined;
}

test("a group's FindCoordinator creates __consumer_offsets with Kafka's configs; a transactional id's does not", async (t) => {
  const broker = await startBroker({ offsetsTopicNumPartitions: 7, offsetsTopicSegmentBytes: 1 << 20 });
  const c = await WireClient.connect(broker.port);
  t.after(async () => {
    c.close();
    await broker.close();
  });
  assert.equal(await offsetsTopicPartitions(c), undefined, 'not there at the start');
  const find = (keyType: number) => c.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { key: '', keyType, coordinatorKeys: ['g'] });
  assert.equal((await find(1)).coordinators[0]!.errorCode, 0);
  assert.equal(await offsetsTopicPartitions(c), undefined, 'a transactional id needs no offsets topic');
  assert.equal((await find(0)).coordinators[0]!.errorCode, 0);
  assert.equal(await offsetsTopicPartitions(c), 7);
  const described = await c.request(DescribeConfigsRequest, DescribeConfigsResponse, 4, {
    resources: [{ resourceType: 2, resourceName: OFFSETS, configurationKeys: ['cleanup.policy', 'segment.bytes', 'compression.type'] }],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  const configs = Object.fromEntries(described.results[0]!.configs.map((config) => [config.name, config.value]));
  assert.deepEqual(configs, { 'cleanup.policy': 'compact', 'segment.bytes': String(1 << 20), 'compression.type': 'producer' });
});
