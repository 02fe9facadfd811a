/**
 * With the authorizer on, the consumer group protocol's APIs are refused as Kafka refuses them,
 * in every version served: ConsumerGroupHeartbeat needs READ on the group and DESCRIBE on each
 * topic it subscribes to by name; ConsumerGroupDescribe needs DESCRIBE on the group, and on every
 * topic its members own or are to own (`KafkaApis.handleConsumerGroupHeartbeat`,
 * `handleConsumerGroupDescribe`).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { AclOperation as Op, ResourceType } from '../src/acl/acl-binding.js';
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../src/protocol/messages/consumer-group-heartbeat.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../src/protocol/messages/consumer-group-describe.js';
import { CreateAclsRequest, CreateAclsResponse } from '../src/protocol/messages/create-acls.js';
import { topicAcl } from './helpers/acls.js';
import { usersFileFor } from './helpers/cli.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

const VERSIONS = [0, 1];

let broker: Broker;
let admin: WireClient;
let carol: WireClient;

async function user(name: string): Promise<WireClient> {
  const c = await WireClient.connect(broker.port);
  await c.authenticatePlain(name, `${name}-secret`);
  return c;
}

async function grant(resourceType: number, resourceName: string, operation: number): Promise<void> {
  const r = await admin.request(CreateAclsRequest, CreateAclsResponse, 3, { creations: [topicAcl(resourceName, 'User:carol', operation, { resourceType })] });
  assert.equal(r.results[0]!.errorCode, ErrorCode.NONE);
}

function join(client: WireClient, version: number, groupId: string, topics: string[]): Promise<ConsumerGroupHeartbeatResponse> {
  return client.request(ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, version, {
    groupId,
    // From v1 the client names itself.
    memberId: version >= 1 ? randomUUID() : '',
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: topics,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: [],
  });
}

function describe(client: WireClient, version: number, groupId: string): Promise<ConsumerGroupDescribeResponse> {
  return client.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, version, { groupIds: [groupId], includeAuthorizedOperations: false });
}

before(async () => {
  broker = await startBroker({ port: 0, saslUsersFile: await usersFileFor(['admin', 'carol']), authorizer: true, superUsers: ['User:admin'] });
  admin = await user('admin');
  carol = await user('carol');
  await createTopic(admin, 'open', 2);
  await createTopic(admin, 'hidden', 2);
  // The super user's group reads both topics.
  const joined = await join(admin, 1, 'both', ['open', 'hidden']);
  assert.equal(joined.errorCode, ErrorCode.NONE);
  await grant(ResourceType.TOPIC, 'open', Op.DESCRIBE);
});

after(async () => {
  admin.close();
  carol.close();
  await broker.close();
});

for (const v of VERSIONS) {
  test(`ConsumerGroupHeartbeat v${v}: GROUP_AUTHORIZATION_FAILED without READ on the group`, async () => {
    const r = await join(carol, v, `no-read-v${v}`, ['open']);
    assert.equal(r.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  });

  test(`ConsumerGroupHeartbeat v${v}: TOPIC_AUTHORIZATION_FAILED when a topic subscribed to may not be described`, async () => {
    const groupId = `topics-v${v}`;
    await grant(ResourceType.GROUP, groupId, Op.READ);
    const refused = await join(carol, v, groupId, ['open', 'hidden']);
    assert.deepEqual([refused.errorCode, refused.memberId, refused.assignment], [ErrorCode.TOPIC_AUTHORIZATION_FAILED, null, null]);
    const joined = await join(carol, v, groupId, ['open']);
    assert.equal(joined.errorCode, ErrorCode.NONE, 'the topics it may describe are its');
  });

  test(`ConsumerGroupDescribe v${v}: GROUP_AUTHORIZATION_FAILED without DESCRIBE on the group`, async () => {
    const r = await describe(carol, v, 'both');
    assert.deepEqual([r.groups[0]!.errorCode, r.groups[0]!.members], [ErrorCode.GROUP_AUTHORIZATION_FAILED, []]);
  });
}

test('ConsumerGroupDescribe: TOPIC_AUTHORIZATION_FAILED, without members, while a topic the group owns may not be described', async () => {
  await grant(ResourceType.GROUP, 'both', Op.DESCRIBE);
  for (const v of VERSIONS) {
    const r = await describe(carol, v, 'both');
    const group = r.groups[0]!;
    assert.deepEqual(
      [group.errorCode, group.errorMessage, group.members],
      [ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'The group has described topic(s) that the client is not authorized to describe.', []],
    );
  }
  await grant(ResourceType.TOPIC, 'hidden', Op.DESCRIBE);
  for (const v of VERSIONS) {
    const group = (await describe(carol, v, 'both')).groups[0]!;
    assert.equal(group.errorCode, ErrorCode.NONE);
    assert.deepEqual(
      group.members[0]!.assignment.topicPartitions.map((t) => t.topicName).sort(),
      ['hidden', 'open'],
      'once it may describe every topic, the group is shown',
    );
  }
});
