/** Topics and exact Produce requests over the raw wire client, for tests that count what the broker saw. */
import assert from 'node:assert/strict';
import { CreateTopicsRequest, CreateTopicsResponse } from '../../src/protocol/messages/create-topics.js';
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/produce.js';
import type { WireClient } from './wire-client.js';

export async function createTopic(client: WireClient, name: string, numPartitions: number, configs: Record<string, string> = {}): Promise<void> {
  const created = await client.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  assert.equal(created.topics[0]?.errorCode, 0, `creating ${name}`);
}

/** A Produce request carrying one record batch for one partition. */
export function produceRequest(topic: string, partition: number, records: Buffer, acks = -1): ProduceRequest {
  return { transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] };
}

/** Sends one record batch to one partition (in Produce `version`, naming `transactionalId`); the partition's error code and base offset. */
export async function produceBatch(
  client: WireClient,
  topic: string,
  partition: number,
  records: Buffer,
  version = 9,
  transactionalId: string | null = null,
): Promise<{ errorCode: number; baseOffset: number }> {
  const response = await client.request(ProduceRequest, ProduceResponse, version, { ...produceRequest(topic, partition, records), transactionalId });
  const p = response.responses[0]!.partitionResponses[0]!;
  return { errorCode: p.errorCode, baseOffset: Number(p.baseOffset) };
}
