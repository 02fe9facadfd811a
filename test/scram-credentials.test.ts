/**
 * SCRAM credentials managed while brook runs: DescribeUserScramCredentials and
 * AlterUserScramCredentials on the SASL users file, used by the next authentication of a real
 * client (kafkajs), kept across a restart; and Kafka's answers when there is no file.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse } from '../src/protocol/messages/alter-user-scram-credentials.js';
import { DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse } from '../src/protocol/messages/describe-user-scram-credentials.js';
import { runBrook } from './helpers/cli.js';
import { tempDataDir } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';

/** Kafka's mechanism type ids. */
const SHA_256 = 1;
const SHA_512 = 2;

let dir: string;
let usersFile: string;
let broker: Broker;
let admin: WireClient;

async function start(): Promise<void> {
  broker = await startBroker({ port: 0, dataDir: join(dir, 'data'), saslUsersFile: usersFile, failedAuthenticationDelayMs: 0 });
  admin = await WireClient.connect(broker.port);
  await admin.authenticatePlain('alice', 'alice-secret');
}

async function stop(): Promise<void> {
  admin.close();
  await broker.close();
}

before(async () => {
  dir = await tempDataDir();
  usersFile = join(dir, 'users.json');
  assert.equal((await runBrook(['add-user', '--users-file', usersFile, '--user', 'alice'], 'alice-secret\n')).code, 0);
  await start();
});

after(async () => {
  await stop();
  await rm(dir, { recursive: true, force: true });
});

/** An upsertion as a client makes it: the password salted and hashed by the client, never sent. */
function upsertion(name: string, password: string, mechanism = SHA_256, iterations = 8192) {
  const salt = randomBytes(24);
  const [hash, bytes] = mechanism === SHA_512 ? ['sha512', 64] : ['sha256', 32];
  return { name, mechanism, iterations, salt, saltedPassword: pbkdf2Sync(password, salt, iterations, bytes, hash) };
}

async function alter(request: Partial<AlterUserScramCredentialsRequest>, c = admin): Promise<[string, number, string | null][]> {
  const res = await c.request(AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, 0, { deletions: [], upsertions: [], ...request });
  return res.results.map((r) => [r.user, r.errorCode, r.errorMessage]);
}

async function describe(names: string[] | null, c = admin): Promise<[string, number, string | null, [number, number][]][]> {
  const res = await c.request(DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse, 0, {
    users: names?.map((name) => ({ name })) ?? null,
  });
  assert.equal(res.errorCode, 0);
  return res.results.map((r) => [r.user, r.errorCode, r.errorMessage, r.credentialInfos.map((i) => [i.mechanism, i.iterations])]);
}

/** Whether kafkajs authenticates with these credentials (and then lists topics). */
async function authenticates(mechanism: 'scram-sha-256' | 'scram-sha-512', username: string, password: string): Promise<boolean> {
  const kafka = new Kafka({
    clientId: 'scram-test',
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
    sasl: { mechanism, username, password } as SASLOptions,
  });
  const client = kafka.admin();
  try {
    await client.connect();
    await client.listTopics();
    return true;
  } catch {
    return false;
  } finally {
    await client.disconnect();
  }
}

test('DescribeUserScramCredentials lists each user of the file with its mechanisms and iterations', async () => {
  assert.deepEqual(await describe(null), [
    [
      'alice',
      0,
      null,
      [
        [SHA_256, 4096],
        [SHA_512, 4096],
      ],
    ],
  ]);
  assert.deepEqual(await describe(['alice', 'nobody', 'alice']), [
    ['alice', ErrorCode.DUPLICATE_RESOURCE, 'Cannot describe SCRAM credentials for the same user twice in a single request: alice', []],
    ['nobody', ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to describe a user credential that does not exist: nobody', []],
  ]);
});

test('an upsertion is used by the next authentication and a deletion refuses it; both are kept across a restart', async () => {
  assert.equal(await authenticates('scram-sha-256', 'carol', 'carol-secret'), false, 'carol is not yet a user');
  assert.deepEqual(
    await alter({
      upsertions: [upsertion('carol', 'carol-secret'), upsertion('dave', 'dave-secret', SHA_512, 4096)],
      deletions: [{ name: 'alice', mechanism: SHA_512 }],
    }),
    [
      ['alice', 0, null],
      ['carol', 0, null],
      ['dave', 0, null],
    ],
  );
  assert.equal(await authenticates('scram-sha-256', 'carol', 'carol-secret'), true);
  assert.equal(await authenticates('scram-sha-256', 'carol', 'wrong'), false);
  assert.equal(await authenticates('scram-sha-512', 'dave', 'dave-secret'), true);
  assert.equal(await authenticates('scram-sha-512', 'alice', 'alice-secret'), false, "alice's SCRAM-SHA-512 credential is deleted");
  assert.deepEqual(await describe(['carol', 'alice']), [
    ['carol', 0, null, [[SHA_256, 8192]]],
    ['alice', 0, null, [[SHA_256, 4096]]],
  ]);

  const text = await readFile(usersFile, 'utf8');
  assert.deepEqual(Object.keys(JSON.parse(text).users), ['alice', 'carol', 'dave']);
  assert.doesNotMatch(text, /carol-secret|dave-secret/);
  assert.equal((await stat(usersFile)).mode & 0o777, 0o600);

  await stop();
  await start();
  assert.equal(await authenticates('scram-sha-256', 'carol', 'carol-secret'), true, 'after a restart');
  assert.equal(await authenticates('scram-sha-512', 'alice', 'alice-secret'), false, 'still deleted after a restart');
  assert.equal(await authenticates('scram-sha-256', 'alice', 'alice-secret'), true);
  assert.deepEqual(await alter({ deletions: [{ name: 'dave', mechanism: SHA_512 }] }), [['dave', 0, null]]);
  assert.equal(await authenticates('scram-sha-512', 'dave', 'dave-secret'), false, 'a user without credentials is gone');
  assert.deepEqual(await describe(['dave']), [['dave', ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to describe a user credential that does not exist: dave', []]]);
});

test('alterations Kafka refuses are refused with its errors (one per user, the first refusal winning), and change nothing', async () => {
  const before = await readFile(usersFile, 'utf8');
  assert.deepEqual(
    await alter({
      upsertions: [
        upsertion('erin', 'e'),
        upsertion('hank', 'h'),
        upsertion('hank', 'h', SHA_512),
        upsertion('few', 'x', SHA_256, 1000),
        upsertion('many', 'x', SHA_512, 20_000),
        { ...upsertion('odd', 'x'), mechanism: 0 },
        upsertion('', 'x'),
      ],
      deletions: [
        { name: 'erin', mechanism: SHA_256 },
        { name: 'ghost', mechanism: SHA_256 },
      ],
    }),
    [
      ['erin', ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist'],
      ['ghost', ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist'],
      ['hank', ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request'],
      ['few', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations'],
      ['many', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations'],
      ['odd', ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'],
      ['', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty'],
    ],
  );
  assert.equal(await readFile(usersFile, 'utf8'), before);
});

test("a user `brook add-user` writes into the running broker's file stays through the next alteration, which brings it in", async () => {
  assert.equal((await runBrook(['add-user', '--users-file', usersFile, '--user', 'frank'], 'frank-secret\n')).code, 0);
  assert.deepEqual(await alter({ upsertions: [upsertion('gina', 'gina-secret')] }), [['gina', 0, null]]);
  assert.equal(await authenticates('scram-sha-512', 'frank', 'frank-secret'), true);
  assert.ok(Object.keys(JSON.parse(await readFile(usersFile, 'utf8')).users).includes('frank'));
});

test('without a SASL users file there is nothing to manage: users are RESOURCE_NOT_FOUND, alterations UNSUPPORTED_VERSION', async () => {
  const plain = await startBroker({ port: 0 });
  const c = await WireClient.connect(plain.port);
  try {
    assert.deepEqual(await describe(null, c), []);
    assert.deepEqual(await describe(['alice'], c), [
      ['alice', ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to describe a user credential that does not exist: alice', []],
    ]);
    const scramOff = 'SCRAM is not enabled: brook runs without a SASL users file, so there are no credentials to alter';
    assert.deepEqual(
      await alter(
        { upsertions: [upsertion('alice', 'a'), upsertion('bob', 'b'), upsertion('bob', 'b', SHA_512)], deletions: [{ name: 'carol', mechanism: SHA_256 }] },
        c,
      ),
      [
        ['carol', ErrorCode.UNSUPPORTED_VERSION, scramOff],
        ['alice', ErrorCode.UNSUPPORTED_VERSION, scramOff],
        ['bob', ErrorCode.UNSUPPORTED_VERSION, scramOff],
      ],
    );
  } finally {
    c.close();
    await plain.close();
  }
});
