/**
 * With the authorizer on, a user without ACLs sends each API brook serves, in every version it
 * serves under the oldest release and the newest (between them, every version brook serves), with generated bodies naming the broker's resources: no answer tells what only a right
 * would show, and nothing changes (topics, records, configs, offsets, groups, transactions, ACLs,
 * users), as the super user sees it.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { buildApiTable } from '../src/broker/api-table.js';
import { KAFKA_VERSIONS, type KafkaVersion } from '../src/protocol/kafka-releases.js';
import { AclOperation as Op } from '../src/acl/acl-binding.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { ApiKey } from '../src/protocol/messages/apis.js';
import { CreateAclsRequest, CreateAclsResponse } from '../src/protocol/messages/create-acls.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { DescribeAclsRequest, DescribeAclsResponse } from '../src/protocol/messages/describe-acls.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../src/protocol/messages/describe-configs.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../src/protocol/messages/describe-groups.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../src/protocol/messages/describe-transactions.js';
import { FetchRequest } from '../src/protocol/messages/fetch.js';
import { DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse } from '../src/protocol/messages/describe-user-scram-credentials.js';
import { ListGroupsRequest, ListGroupsResponse } from '../src/protocol/messages/list-groups.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { ListTransactionsRequest, ListTransactionsResponse } from '../src/protocol/messages/list-transactions.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../src/protocol/messages/offset-fetch.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import type { ApiHandler } from '../src/broker/api-handler.js';
import { ANY_ACL, topicAcl } from './helpers/acls.js';
import { valuesBatch } from './helpers/batch.js';
import { usersFileFor } from './helpers/cli.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { structArb } from './helpers/schema-arbitraries.js';
import { WireClient } from './helpers/wire-client.js';
import { produceRequest } from './helpers/wire-produce.js';
import { WireTxnProducer } from './helpers/wire-txn.js';

type Obj = Record<string, unknown>;

const RUNS = Number(process.env.ACL_RUNS ?? 6);
/**
 * The oldest release, with the versions Kafka 4 removed, and the newest, whose versions name
 * topics by id too (Produce v13, Fetch v13+), an id being a secret here.
 */
const RELEASES = [KAFKA_VERSIONS[0]!, KAFKA_VERSIONS[KAFKA_VERSIONS.length - 1]!];
/** What only a right shows: records, an offset and its metadata, a config, a transaction's timeout, another's ACL host, a user. */
const SECRETS = ['SECRET-VALUE', '424242', 'SECRET-META', '987654321', '765432', '10.9.8.7', 'zelda-hidden'];
/** Names the generated requests use most: the broker's resources, and some that are not. */
const NAMES = ['secret', 'other', 'g', 'tx-secret', '1', 'User:carol', 'User:bob', 'zelda-hidden', 'retention.ms', '*', ''];

let broker: Broker;
let admin: WireClient;
let bob: WireClient;
/** The secrets as found once the setup is done: the topic id joins them. */
let secrets: string[];

async function user(name: string): Promise<WireClient> {
  const c = await WireClient.connect(broker.port);
  await c.authenticatePlain(name, `${name}-secret`);
  return c;
}

/** A broker of the release holding the secrets, and the two users' connections. */
async function setUp(kafkaVersion: KafkaVersion): Promise<void> {
  secrets = [...SECRETS];
  const usersFile = await usersFileFor(['admin', 'bob', 'zelda-hidden']);
  broker = await startBroker({ port: 0, saslUsersFile: usersFile, authorizer: true, superUsers: ['User:admin'], kafkaVersion });
  admin = await user('admin');
  bob = await user('bob');
  const created = await admin.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name: 'secret', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '987654321' }] }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
  secrets.push(created.topics[0]!.topicId);
  const produced = await admin.request(ProduceRequest, ProduceResponse, 9, produceRequest('secret', 0, valuesBatch(3, {}, 'SECRET-VALUE')));
  assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
  const committed = await admin.request(OffsetCommitRequest, OffsetCommitResponse, 8, {
    groupId: 'g',
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [
      {
        name: 'secret',
        partitions: [{ partitionIndex: 0, committedOffset: 424242n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: 'SECRET-META' }],
      },
    ],
  });
  assert.equal(committed.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  const open = new WireTxnProducer(admin, 'tx-secret', 765432);
  assert.equal(await open.init(), ErrorCode.NONE);
  assert.deepEqual(await open.add('secret', [1]), [ErrorCode.NONE]);
  const acl = await admin.request(CreateAclsRequest, CreateAclsResponse, 3, { creations: [topicAcl('other', 'User:carol', Op.READ, { host: '10.9.8.7' })] });
  assert.equal(acl.results[0]!.errorCode, ErrorCode.NONE);
}

async function tearDown(): Promise<void> {
  admin.close();
  bob.close();
  await broker.close();
}

const json = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

/** Everything a request might change, as the super user sees it. */
async function everything(): Promise<string> {
  const metadata = await admin.request(MetadataRequest, MetadataResponse, 12, {
    topics: null,
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  const topics = metadata.topics.map((t) => ({ name: t.name, id: t.topicId, partitions: t.partitions.map((p) => p.partitionIndex).sort() }));
  const offsets = [];
  for (const timestamp of [-2n, -1n]) {
    const listed = await admin.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
      replicaId: -1,
      isolationLevel: 0,
      timeoutMs: 0,
      topics: topics.map((t) => ({
        name: t.name!,
        partitions: t.partitions.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 })),
      })),
    });
    offsets.push(listed.topics.map((t) => [t.name, t.partitions.map((p) => p.offset)]));
  }
  const configs = await admin.request(DescribeConfigsRequest, DescribeConfigsResponse, 4, {
    resources: [
      ...topics.map((t) => ({ resourceType: 2, resourceName: t.name!, configurationKeys: null })),
      { resourceType: 4, resourceName: '1', configurationKeys: null },
    ],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  const groupIds = (await admin.request(ListGroupsRequest, ListGroupsResponse, 4, { statesFilter: [], typesFilter: [] })).groups.map((g) => g.groupId).sort();
  const groups = await admin.request(DescribeGroupsRequest, DescribeGroupsResponse, 5, { groups: groupIds, includeAuthorizedOperations: false });
  const committed = [];
  for (const groupId of groupIds) {
    const fetched = await admin.request(OffsetFetchRequest, OffsetFetchResponse, 7, { groupId, topics: null, groups: [], requireStable: false });
    committed.push([groupId, fetched.topics]);
  }
  const txnIds = (
    await admin.request(ListTransactionsRequest, ListTransactionsResponse, 1, { stateFilters: [], producerIdFilters: [], durationFilter: -1n })
  ).transactionStates
    .map((t) => t.transactionalId)
    .sort();
  const txns = await admin.request(DescribeTransactionsRequest, DescribeTransactionsResponse, 0, { transactionalIds: txnIds });
  const acls = await admin.request(DescribeAclsRequest, DescribeAclsResponse, 3, ANY_ACL);
  const users = await admin.request(DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse, 0, { users: null });
  return json({
    topics,
    offsets,
    configs: configs.results.map((r) => [r.resourceName, r.errorCode, r.configs.map((c) => [c.name, c.value]).sort()]),
    groups: groups.groups.map((g) => [g.groupId, g.groupState, g.members.length]),
    committed,
    txns: txns.transactionStates,
    acls: acls.resources,
    users: users.results.map((r) => [r.user, r.credentialInfos.length]).sort(),
  });
}

/** A request Kafka would answer at once and in full: no wait for data, a real batch to refuse. */
function answerable(apiKey: number, request: Obj): Obj {
  if (apiKey === ApiKey.Fetch) return { ...request, maxWaitMs: 0 };
  if (apiKey === ApiKey.Produce) {
    const topicData = (request.topicData as Obj[]).map((t) => ({
      ...t,
      partitionData: (t.partitionData as Obj[]).map((p) => ({ ...p, records: valuesBatch(1) })),
    }));
    return { ...request, acks: -1, topicData };
  }
  return request;
}

/** Sends the request as bob; the answer, or undefined where the broker closed the connection (bob connects again). */
async function asBob(handler: ApiHandler, version: number, request: Obj): Promise<{ frame: Buffer; body: unknown } | undefined> {
  bob.sendRaw(bob.frame(handler.request, version, request));
  const frame = await bob.nextFrame();
  if (frame === undefined) {
    bob = await user('bob');
    return undefined;
  }
  return { frame, body: bob.decode(frame, handler.response, handler.request.apiKey, version).body };
}

/** Mostly the broker's names, partitions and the numbers that mean "any" or "none". */
const PRIMITIVES = {
  string: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }),
  int32: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(-1, 0, 1) }, { weight: 1, arbitrary: fc.integer() }),
};

for (const kafkaVersion of RELEASES) {
  describe(`Kafka ${kafkaVersion}'s versions`, () => {
    before(() => setUp(kafkaVersion));
    after(tearDown);

    test('a user without ACLs learns nothing and changes nothing, through any API in any version served', async () => {
      const start = await everything();
      for (const [apiKey, handler] of buildApiTable(undefined, kafkaVersion)) {
        for (let version = handler.minVersion; version <= handler.maxVersion; version++) {
          await fc.assert(
            fc.asyncProperty(structArb(handler.request.schema, version, 0, PRIMITIVES), async (generated) => {
              const request = answerable(apiKey, generated);
              const answer = await asBob(handler, version, request);
              if (answer === undefined) return;
              const asked = json(request) + bob.frame(handler.request, version, request).toString('latin1');
              const told = json(answer.body) + answer.frame.toString('latin1');
              const leaked = secrets.filter((s) => told.includes(s) && !asked.includes(s));
              assert.deepEqual(leaked, [], `${handler.request.name} v${version} answered ${json(answer.body).slice(0, 600)}`);
            }),
            { numRuns: RUNS },
          );
        }
        assert.equal(await everything(), start, `${handler.request.name} changed nothing`);
      }
    });

    test('the secrets are there to be found: the super user is told each', async () => {
      const seen = await everything();
      admin.sendRaw(admin.frame(FetchRequest, 12, fetchOf('secret', [0])));
      const told = seen + (await admin.nextFrame())!.toString('latin1');
      assert.deepEqual(
        secrets.filter((s) => !told.includes(s)),
        [],
      );
    });
  });
}
