import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Kafka, logLevel, type ConfigResourceTypes, type KafkaConfig, type SASLOptions } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { ProduceRequest } from '../src/protocol/messages/produce.js';
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../src/protocol/messages/sasl-authenticate.js';
import { SaslHandshakeRequest, SaslHandshakeResponse } from '../src/protocol/messages/sasl-handshake.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { valuesBatch } from './helpers/batch.js';
import { consumeAll } from './helpers/kafkajs.js';
import { runBrook } from './helpers/cli.js';
import { tempDataDir } from './helpers/serve-process.js';
import { makeTestCerts, type TestCerts } from './helpers/tls-certs.js';
import { WireClient } from './helpers/wire-client.js';
import { produceRequest } from './helpers/wire-produce.js';

const DELAY_MS = 300;
/** kafkajs's ConfigResourceTypes.BROKER, which its CommonJS module does not export by name to ESM. */
const BROKER_RESOURCE = 4 as ConfigResourceTypes;
let certs: TestCerts;
let usersFile: string;
const brokers: Broker[] = [];

before(async () => {
  certs = await makeTestCerts();
  usersFile = join(await tempDataDir(), 'users.json');
  for (const [user, password] of [
    ['alice', 'alice-secret'],
    ['bob', 'bob-secret'],
  ]) {
    const r = await runBrook(['add-user', '--users-file', usersFile, '--user', user!], `${password}\n`);
    assert.equal(r.code, 0, r.stderr);
  }
});

after(async () => {
  await Promise.all(brokers.map((b) => b.close()));
});

async function broker(options: Parameters<typeof startBroker>[0]): Promise<Broker> {
  const b = await startBroker({ port: 0, saslUsersFile: usersFile, failedAuthenticationDelayMs: DELAY_MS, ...options });
  brokers.push(b);
  return b;
}

function client(b: Broker, extra: Partial<KafkaConfig>): Kafka {
  return new Kafka({ clientId: 'security-test', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, connectionTimeout: 3000, ...extra });
}

/** Produces one message and reads the partition's end offset back through the same credentials. */
async function produceAndCount(kafka: Kafka, topic: string): Promise<number> {
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  await producer.send({ topic, messages: [{ value: 'v' }] });
  await producer.disconnect();
  const admin = kafka.admin();
  await admin.connect();
  const [offsets] = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  return Number(offsets!.high);
}

test('the users file holds salted SCRAM credentials, never the password, and only its owner may read it', async () => {
  const text = await readFile(usersFile, 'utf8');
  assert.doesNotMatch(text, /alice-secret|bob-secret/);
  const users = JSON.parse(text).users;
  assert.deepEqual(Object.keys(users.alice).sort(), ['SCRAM-SHA-256', 'SCRAM-SHA-512']);
  assert.equal((await stat(usersFile)).mode & 0o777, 0o600);
  const odd = join(await tempDataDir(), 'users.json');
  for (const user of ['__proto__', 'carol']) assert.equal((await runBrook(['add-user', '--users-file', odd, '--user', user], 'pw\n')).code, 0);
  assert.deepEqual(Object.keys(JSON.parse(await readFile(odd, 'utf8')).users), ['__proto__', 'carol'], 'any user name is kept');
});

test('SASL: PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 with the right password work', async () => {
  const b = await broker({});
  let expected = 0;
  for (const mechanism of ['plain', 'scram-sha-256', 'scram-sha-512'] as const) {
    expected++;
    const kafka = client(b, { sasl: { mechanism, username: 'alice', password: 'alice-secret' } as SASLOptions });
    assert.equal(await produceAndCount(kafka, 'sasl-ok'), expected, mechanism);
  }
});

test('SASL: a wrong password or unknown user is refused with the Kafka error, after the delay', async () => {
  const b = await broker({});
  for (const [mechanism, username, password] of [
    ['scram-sha-256', 'alice', 'wrong'],
    ['scram-sha-256', 'nobody', 'x'],
    ['scram-sha-512', 'alice', 'wrong'],
    ['scram-sha-512', 'nobody', 'x'],
    ['plain', 'bob', 'alice-secret'],
    ['plain', 'nobody', 'x'],
  ] as const) {
    const admin = client(b, { sasl: { mechanism, username, password } as SASLOptions, retry: { retries: 0 } }).admin();
    const started = Date.now();
    await assert.rejects(admin.connect(), (err: Error & { type?: string }) => {
      assert.match(`${err.name} ${err.message}`, /SASL|Authentication/i);
      return true;
    });
    assert.ok(Date.now() - started >= DELAY_MS, `refusal came after ${Date.now() - started} ms`);
  }
});

test('SASL: guesses sent in parallel are answered a delay apart, and a right password after them waits its turn', async () => {
  const b = await broker({});
  const guess = async (password: string): Promise<{ errorCode: number; at: number }> => {
    const c = await WireClient.connect(b.port);
    assert.equal((await c.request(SaslHandshakeRequest, SaslHandshakeResponse, 1, { mechanism: 'PLAIN' })).errorCode, ErrorCode.NONE);
    const answer = await c.request(SaslAuthenticateRequest, SaslAuthenticateResponse, 2, { authBytes: Buffer.from(`\0alice\0${password}`) });
    c.close();
    return { errorCode: answer.errorCode, at: Date.now() };
  };
  const started = Date.now();
  const wrong = await Promise.all(Array.from({ length: 6 }, (_, i) => guess(`guess-${i}`)));
  assert.deepEqual(new Set(wrong.map((w) => w.errorCode)), new Set([ErrorCode.SASL_AUTHENTICATION_FAILED]));
  // Each failure holds alice and 127.0.0.1 for the delay after those before it: six take six delays.
  const last = Math.max(...wrong.map((w) => w.at));
  assert.ok(last - started >= 6 * DELAY_MS, `six parallel guesses were all answered within ${last - started} ms`);
  const right = await guess('alice-secret');
  assert.equal(right.errorCode, ErrorCode.NONE);
});

test('SASL: a request before authentication closes the connection and never reaches the log', async () => {
  const b = await broker({});
  const kafka = client(b, { sasl: { mechanism: 'scram-sha-256', username: 'bob', password: 'bob-secret' } });
  assert.equal(await produceAndCount(kafka, 'guarded'), 1);
  const intruder = await WireClient.connect(b.port);
  const records = valuesBatch(5);
  intruder.sendRaw(intruder.frame(ProduceRequest, 9, produceRequest('guarded', 0, records)));
  assert.equal(await intruder.nextFrame(), undefined, 'closed without an answer');
  assert.equal(await produceAndCount(kafka, 'guarded'), 2, 'only the authenticated message was added');
});

test('SASL: a failed SaslAuthenticate is answered SASL_AUTHENTICATION_FAILED before the connection closes; what was pipelined behind it is never served', async () => {
  for (const failedAuthenticationDelayMs of [0, DELAY_MS]) {
    const b = await broker({ failedAuthenticationDelayMs });
    for (const behind of ['Metadata', 'a second guess, the right password'] as const) {
      const c = await WireClient.connect(b.port);
      const handshake = await c.request(SaslHandshakeRequest, SaslHandshakeResponse, 1, { mechanism: 'PLAIN' });
      assert.equal(handshake.errorCode, ErrorCode.NONE);
      const failed = c.frame(SaslAuthenticateRequest, 2, { authBytes: Buffer.from('\0alice\0wrong') });
      const next =
        behind === 'Metadata'
          ? c.frame(MetadataRequest, 12, {
              topics: null,
              allowAutoTopicCreation: false,
              includeClusterAuthorizedOperations: false,
              includeTopicAuthorizedOperations: false,
            })
          : c.frame(SaslAuthenticateRequest, 2, { authBytes: Buffer.from('\0alice\0alice-secret') });
      c.sendRaw(Buffer.concat([failed, next]));
      const frame = await c.nextFrame();
      assert.ok(frame !== undefined, `${behind}, delay ${failedAuthenticationDelayMs} ms: the SaslAuthenticate is answered before the connection closes`);
      const { correlationId, body } = c.decode(frame, SaslAuthenticateResponse, SaslAuthenticateRequest.apiKey, 2);
      assert.equal(correlationId, failed.readInt32BE(8));
      assert.equal(body.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
      assert.match(body.errorMessage ?? '', /authentication failed for user 'alice'/);
      assert.equal(await c.nextFrame(), undefined, `${behind}: then the connection closes, the request behind it unanswered`);
      c.close();
    }
  }
});

test('SASL: a request sent before authentication, pipelined behind a SCRAM step, closes the connection only once that step is answered', async () => {
  const b = await broker({});
  const c = await WireClient.connect(b.port);
  const handshake = await c.request(SaslHandshakeRequest, SaslHandshakeResponse, 1, { mechanism: 'SCRAM-SHA-256' });
  assert.equal(handshake.errorCode, ErrorCode.NONE);
  const clientFirst = c.frame(SaslAuthenticateRequest, 2, { authBytes: Buffer.from('n,,n=alice,r=pipelined-nonce') });
  const metadata = c.frame(MetadataRequest, 12, {
    topics: null,
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  c.sendRaw(Buffer.concat([clientFirst, metadata]));
  const frame = await c.nextFrame();
  assert.ok(frame !== undefined, 'the SCRAM step is answered');
  const { body } = c.decode(frame, SaslAuthenticateResponse, SaslAuthenticateRequest.apiKey, 2);
  assert.equal(body.errorCode, ErrorCode.NONE);
  assert.match(body.authBytes.toString(), /^r=pipelined-nonce/, 'the server-first message');
  assert.equal(await c.nextFrame(), undefined, 'then the connection closes, Metadata unanswered');
  c.close();
});

test("SCRAM salts are Kafka's: ASCII text in base 36, for a user `brook add-user` made and for a user that does not exist alike", async () => {
  const b = await broker({});
  const saltOf = async (user: string, mechanism: string): Promise<string> => {
    const c = await WireClient.connect(b.port);
    assert.equal((await c.request(SaslHandshakeRequest, SaslHandshakeResponse, 1, { mechanism })).errorCode, ErrorCode.NONE);
    const first = await c.request(SaslAuthenticateRequest, SaslAuthenticateResponse, 2, { authBytes: Buffer.from(`n,,n=${user},r=salt-nonce`) });
    c.close();
    const salt = /,s=([^,]+),/.exec(first.authBytes.toString())?.[1];
    assert.ok(salt !== undefined, 'the server-first message names a salt');
    return Buffer.from(salt, 'base64').toString('latin1');
  };
  for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512']) {
    for (const user of ['alice', 'mallory']) assert.match(await saltOf(user, mechanism), /^[0-9a-z]{20,26}$/, `${user}'s ${mechanism} salt`);
  }
});

test('TLS: clients that trust the CA connect; a plain TCP client does not get an answer', async () => {
  const b = await broker({ tls: { cert: certs.cert, key: certs.key, clientAuth: 'none' } });
  const kafka = client(b, { ssl: { ca: [certs.ca] }, sasl: { mechanism: 'scram-sha-512', username: 'alice', password: 'alice-secret' } });
  assert.equal(await produceAndCount(kafka, 'over-tls'), 1);
  const admin = kafka.admin();
  await admin.connect();
  const described = await admin.describeConfigs({
    resources: [{ type: BROKER_RESOURCE, name: '1', configNames: ['advertised.listeners'] }],
    includeSynonyms: false,
  });
  await admin.disconnect();
  assert.equal(
    described.resources[0]!.configEntries[0]!.configValue,
    `SASL_SSL://127.0.0.1:${b.port}`,
    'the listener is named by its security protocol, as in Kafka',
  );
  const plain = await WireClient.connect(b.port);
  plain.sendRaw(plain.frame(ProduceRequest, 9, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [] }));
  assert.equal(await plain.nextFrame(), undefined);
});

test("TLS: a consumer reads back records larger than a response's own bytes, sent beside them in one write", async () => {
  const b = await broker({ saslUsersFile: undefined, tls: { cert: certs.cert, key: certs.key, clientAuth: 'none' } });
  const kafka = client(b, { ssl: { ca: [certs.ca] } });
  const values = Array.from({ length: 40 }, (_, i) => `${i}:${'x'.repeat(2000)}`);
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  await producer.send({ topic: 'big-over-tls', messages: values.map((value) => ({ value })) });
  await producer.disconnect();
  const consumed = await consumeAll(kafka, 'big-over-tls', 'tls-readers', values.length);
  assert.deepEqual(
    consumed.map((m) => m.value),
    values,
  );
});

test('TLS with client certificates required: with one it works, without one it is refused', async () => {
  const b = await broker({ saslUsersFile: undefined, tls: { cert: certs.cert, key: certs.key, ca: certs.ca, clientAuth: 'required' } });
  const withCert = client(b, { ssl: { ca: [certs.ca], cert: certs.clientCert, key: certs.clientKey } });
  assert.equal(await produceAndCount(withCert, 'mtls'), 1);
  const withoutCert = client(b, { ssl: { ca: [certs.ca] }, retry: { retries: 0 } }).admin();
  await assert.rejects(withoutCert.connect());
});

test('a listener without SASL answers SaslHandshake and SaslAuthenticate ILLEGAL_SASL_STATE and goes on serving, as Kafka does', async () => {
  const b = await startBroker({ port: 0 });
  brokers.push(b);
  const c = await WireClient.connect(b.port);
  const handshake = await c.request(SaslHandshakeRequest, SaslHandshakeResponse, 1, { mechanism: 'PLAIN' });
  assert.deepEqual([handshake.errorCode, handshake.mechanisms], [ErrorCode.ILLEGAL_SASL_STATE, []]);
  const authenticate = await c.request(SaslAuthenticateRequest, SaslAuthenticateResponse, 2, { authBytes: Buffer.from('\0user\0secret') });
  assert.equal(authenticate.errorCode, ErrorCode.ILLEGAL_SASL_STATE);
  const metadata = await c.request(MetadataRequest, MetadataResponse, 12, {
    topics: null,
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  assert.equal(metadata.brokers.length, 1);
  c.close();
});
