/** DescribeCluster: this broker as the cluster and its controller, answered as Kafka does without an authorizer. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { DescribeClusterRequest, DescribeClusterResponse } from '../src/protocol/messages/describe-cluster.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { WireClient } from './helpers/wire-client.js';

/** Kafka's cluster operations with no authorizer: CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE. */
const ALL_CLUSTER_OPERATIONS = 0b1_1111_1010_0000;
const NOT_ASKED = -2147483648;

let broker: Broker;
let client: WireClient;

before(async () => {
  broker = await startBroker({ port: 0 });
  client = await WireClient.connect(broker.port);
});

after(async () => {
  client.close();
  await broker.close();
});

function describe(version: number, request: Partial<DescribeClusterRequest> = {}): Promise<DescribeClusterResponse> {
  return client.request(DescribeClusterRequest, DescribeClusterResponse, version, { includeClusterAuthorizedOperations: false, endpointType: 1, ...request });
}

test('DescribeCluster answers the cluster id Metadata does, this broker as the only one and as controller', async () => {
  const { clusterId } = await client.request(MetadataRequest, MetadataResponse, 12, {
    topics: [],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  for (const version of [0, 1]) {
    assert.deepEqual(await describe(version), {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      endpointType: 1,
      clusterId,
      controllerId: 1,
      brokers: [{ brokerId: 1, host: '127.0.0.1', port: broker.port, rack: null, isFenced: false }],
      clusterAuthorizedOperations: NOT_ASKED,
    });
    assert.equal((await describe(version, { includeClusterAuthorizedOperations: true })).clusterAuthorizedOperations, ALL_CLUSTER_OPERATIONS);
  }
});

test('DescribeCluster v1 for controllers, or of an endpoint type Kafka does not know, is refused', async () => {
  const controllers = await describe(1, { endpointType: 2 });
  assert.deepEqual(
    [controllers.errorCode, controllers.errorMessage, controllers.brokers],
    [114, 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER', []],
  );
  const unknown = await describe(1, { endpointType: 7 });
  assert.deepEqual([unknown.errorCode, unknown.errorMessage, unknown.brokers], [115, 'Unsupported endpoint type 7', []]);
});
