/** A broker on a test's data directory, and what the topic config tests read back over the wire. */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { startBroker, type Broker } from '../../src/broker/start-broker.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../../src/protocol/messages/describe-configs.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../../src/protocol/messages/list-offsets.js';
import { closeAtEnd } from './log.js';
import { WireClient } from './wire-client.js';

/** A broker on `dataDir` checking retention every 50 ms, closed (before the directory is removed) when the test ends. */
export async function brokerAt(t: TestContext, dataDir: string): Promise<{ broker: Broker; client: WireClient }> {
  const broker = closeAtEnd(t, await startBroker({ port: 0, dataDir, retentionCheckIntervalMs: 50 }));
  const client = await WireClient.connect(broker.port);
  closeAtEnd(t, { close: async () => client.close() });
  return { broker, client };
}

/** The configs of `topic` as DescribeConfigs answers them: name to [value, source]. */
export async function describedTopic(client: WireClient, topic: string): Promise<Map<string, [string | null, number]>> {
  const res = await client.request(DescribeConfigsRequest, DescribeConfigsResponse, 4, {
    resources: [{ resourceType: 2, resourceName: topic, configurationKeys: null }],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  assert.equal(res.results[0]!.errorCode, ErrorCode.NONE);
  return new Map(res.results[0]!.configs.map((c) => [c.name, [c.value, c.configSource]]));
}

/** Partition 0's log start offset, as ListOffsets answers it (EARLIEST). */
export const earliestOffset = (client: WireClient, topic: string): Promise<number> => listedOffset(client, topic, -2n);
/** Partition 0's log end offset, as ListOffsets answers it (LATEST). */
export const latestOffset = (client: WireClient, topic: string): Promise<number> => listedOffset(client, topic, -1n);

async function listedOffset(client: WireClient, topic: string, timestamp: bigint): Promise<number> {
  const res = await client.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 }] }],
    timeoutMs: 0,
  });
  return Number(res.topics[0]!.partitions[0]!.offset);
}
