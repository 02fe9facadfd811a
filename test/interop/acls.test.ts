/** `brook serve --authorizer` with the Debian Python clients: ACL admin calls and two users with different rights. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { run, runPython } from '../helpers/external.js';
import { runBrook, usersFileFor } from '../helpers/cli.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';

let serve: ServeProcess;

before(async () => {
  const usersFile = await usersFileFor(['admin', 'alice', 'bob']);
  serve = await startServe(['--sasl-users-file', usersFile, '--authorizer', '--super-users', 'User:admin', '--failed-authentication-delay-ms', '0']);
});
after(async () => {
  await serve.stop();
});

test('kafka-python ACL calls, and librdkafka clients as two users with different rights', async () => {
  assert.deepEqual(await runPython('acl_users.py', [serve.bootstrap, 'orders-eu']), {
    created: 3,
    described: [
      ['User:alice', 'WRITE', 'LITERAL'],
      ['User:bob', 'READ', 'PREFIXED'],
    ],
    'alice produces': ['ok'],
    'alice reads': 'TopicAuthorizationFailedError',
    'bob reads in app': 'from alice',
    'bob reads in other': 'GROUP_AUTHORIZATION_FAILED',
    'bob produces': ['TOPIC_AUTHORIZATION_FAILED'],
    deleted: [1],
  });
});

test('kcat reading what it may describe and not read hears TOPIC_AUTHORIZATION_FAILED from Fetch, in an answer it can parse', async () => {
  const added = await runBrook(
    ['acls', 'add', '--bootstrap', serve.bootstrap, '--user', 'admin', '--allow', 'User:alice', '--operation', 'describe', '--topic', 'orders-eu'],
    'admin-secret\n',
  );
  assert.equal(added.code, 0, added.stderr);
  const sasl = [
    '-X',
    'security.protocol=SASL_PLAINTEXT',
    '-X',
    'sasl.mechanisms=SCRAM-SHA-256',
    '-X',
    'sasl.username=alice',
    '-X',
    'sasl.password=alice-secret',
  ];
  // kcat keeps retrying a refused fetch: it is stopped after a while, its errors printed by then.
  const r = await run('kcat', ['-b', serve.bootstrap, ...sasl, '-C', '-t', 'orders-eu', '-p', '0', '-o', 'beginning', '-e'], undefined, 8000);
  assert.doesNotMatch(r.stderr, /Protocol parse failure/);
  assert.match(r.stderr, /Fetch from broker 1 failed: Broker: Topic authorization failed/);
});
