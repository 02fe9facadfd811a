/**
 * kafkajs clients as users with different ACLs: who may produce, who may read in which group, a
 * prefixed ACL, a DENY over an ALLOW, a super user, the idempotent producer's right, and ACLs
 * that outlive a restart.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { AclOperation as Op, PatternType, Permission, ResourceType } from '../src/acl/acl-binding.js';
import { consumeAll } from './helpers/kafkajs.js';
import { usersFileFor } from './helpers/cli.js';
import { tempDataDir } from './helpers/serve-process.js';

let broker: Broker;

before(async () => {
  const usersFile = await usersFileFor(['admin', 'alice', 'bob', 'carol']);
  broker = await startBroker({
    dataDir: await tempDataDir(),
    port: 0,
    saslUsersFile: usersFile,
    authorizer: true,
    superUsers: ['User:admin'],
    failedAuthenticationDelayMs: 0,
  });
});
after(() => broker.close());

const as = (user: string): Kafka =>
  new Kafka({
    clientId: user,
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    sasl: { mechanism: 'scram-sha-256', username: user, password: `${user}-secret` },
    retry: { retries: 2, initialRetryTime: 50 },
  });

/** The error types of a rejected call, wherever kafkajs nests them. */
function typesOf(err: unknown): unknown[] {
  const e = err as { type?: string; errors?: unknown[]; cause?: unknown; name?: string };
  if (e.errors !== undefined) return e.errors.flatMap(typesOf);
  if (e.type !== undefined) return [e.type];
  return e.cause === undefined ? [e.name ?? String(err)] : typesOf(e.cause);
}

async function refusal(call: Promise<unknown>): Promise<unknown[]> {
  try {
    await call;
  } catch (err) {
    return typesOf(err);
  }
  return assert.fail('the call succeeded');
}

/** The errors a consumer in `groupId` stops on: kafkajs reports them as a crash of its run. */
async function crash(kafka: Kafka, topic: string, groupId: string): Promise<unknown[]> {
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, retry: { retries: 0 } });
  const crashed = new Promise<unknown[]>((resolve) => consumer.on(consumer.events.CRASH, ({ payload }) => resolve(typesOf(payload.error))));
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: () => assert.fail('a message was read') });
    return await crashed;
  } finally {
    await consumer.disconnect();
  }
}

async function produce(kafka: Kafka, topic: string, values: string[], idempotent = false): Promise<void> {
  const producer = kafka.producer({ idempotent, allowAutoTopicCreation: false });
  await producer.connect();
  try {
    await producer.send({ topic, messages: values.map((value) => ({ value })) });
  } finally {
    await producer.disconnect();
  }
}

async function grant(...acls: [resourceType: number, resourceName: string, patternType: number, principal: string, operation: number, permission?: number][]) {
  const admin = as('admin').admin();
  await admin.connect();
  try {
    await admin.createAcls({
      acl: acls.map(([resourceType, resourceName, resourcePatternType, principal, operation, permissionType = Permission.ALLOW]) => ({
        resourceType,
        resourceName,
        resourcePatternType,
        principal,
        host: '*',
        operation,
        permissionType,
      })) as never,
    });
  } finally {
    await admin.disconnect();
  }
}

test('a super user creates topics; a user without ACLs may do nothing', async () => {
  const admin = as('admin').admin();
  await admin.connect();
  await admin.createTopics({ topics: ['orders', 'orders-eu', 'ledger'].map((topic) => ({ topic, numPartitions: 1 })) });
  await admin.disconnect();
  assert.ok((await refusal(produce(as('alice'), 'orders', ['x']))).includes('TOPIC_AUTHORIZATION_FAILED'));
});

test('alice may produce and not read; bob may read in group app and not in group other; ACLs survive a restart', async () => {
  await grant(
    [ResourceType.TOPIC, 'orders', PatternType.LITERAL, 'User:alice', Op.WRITE],
    [ResourceType.TOPIC, 'orders', PatternType.PREFIXED, 'User:bob', Op.READ],
    [ResourceType.GROUP, 'app', PatternType.LITERAL, 'User:bob', Op.READ],
    [ResourceType.GROUP, 'alice', PatternType.LITERAL, 'User:alice', Op.READ],
  );
  await produce(as('alice'), 'orders', ['a1', 'a2'], true);
  assert.deepEqual(
    (await consumeAll(as('bob'), 'orders', 'app', 2)).map((m) => m.value),
    ['a1', 'a2'],
  );
  const other = await crash(as('bob'), 'orders', 'other');
  // kafkajs tells a FindCoordinator refused GROUP_AUTHORIZATION_FAILED as no coordinator found.
  assert.deepEqual(other, ['KafkaJSGroupCoordinatorNotFound']);
  const alice = await crash(as('alice'), 'orders', 'alice');
  assert.ok(alice.includes('TOPIC_AUTHORIZATION_FAILED'), String(alice));
  assert.ok((await refusal(produce(as('bob'), 'orders', ['b']))).includes('TOPIC_AUTHORIZATION_FAILED'));

  await broker.restart();
  await produce(as('alice'), 'orders', ['a3'], true);
  assert.deepEqual(
    (await consumeAll(as('bob'), 'orders', 'app', 1)).map((m) => m.value),
    ['a3'],
    'the ACLs and the group offsets are back after the restart',
  );
});

test('a prefixed ACL covers the topics its name starts, and a DENY wins over it', async () => {
  await grant([ResourceType.TOPIC, 'orders', PatternType.PREFIXED, 'User:carol', Op.WRITE]);
  await produce(as('carol'), 'orders-eu', ['c1']);
  assert.ok((await refusal(produce(as('carol'), 'ledger', ['c']))).includes('TOPIC_AUTHORIZATION_FAILED'));
  await grant([ResourceType.TOPIC, 'orders-eu', PatternType.LITERAL, 'User:*', Op.WRITE, Permission.DENY]);
  assert.ok((await refusal(produce(as('carol'), 'orders-eu', ['c']))).includes('TOPIC_AUTHORIZATION_FAILED'));
  await produce(as('carol'), 'orders', ['c2']);
});

test("an idempotent producer needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic, as in Kafka 3's", async () => {
  await grant([ResourceType.TOPIC, 'ledger', PatternType.LITERAL, 'User:bob', Op.DESCRIBE]);
  // bob may READ but not WRITE any topic: InitProducerId is refused.
  assert.ok((await refusal(produce(as('bob'), 'ledger', ['b'], true))).includes('CLUSTER_AUTHORIZATION_FAILED'));
  await grant([ResourceType.CLUSTER, 'kafka-cluster', PatternType.LITERAL, 'User:bob', Op.IDEMPOTENT_WRITE]);
  // Now InitProducerId is granted, and the write itself is refused on the topic.
  assert.deepEqual(await refusal(produce(as('bob'), 'ledger', ['b'], true)), ['TOPIC_AUTHORIZATION_FAILED']);
});
