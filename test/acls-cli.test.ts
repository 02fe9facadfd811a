/** `brook acls`, the built binary, adding, listing and removing ACLs of a running broker as a SASL user. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { runBrook } from './helpers/cli.js';
import { tempDataDir } from './helpers/serve-process.js';

let broker: Broker;

before(async () => {
  const usersFile = join(await tempDataDir(), 'users.json');
  for (const name of ['admin', 'bob']) assert.equal((await runBrook(['add-user', '--users-file', usersFile, '--user', name], `${name}-secret\n`)).code, 0);
  broker = await startBroker({ saslUsersFile: usersFile, authorizer: true, superUsers: ['User:admin'], failedAuthenticationDelayMs: 0 });
});

after(() => broker.close());

const asAdmin = (args: string[]) => runBrook(['acls', ...args, '--bootstrap', broker.bootstrap, '--user', 'admin'], 'admin-secret\n');

/** The printed table as cells. */
const cells = (stdout: string): string[][] =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));

test('add, list and remove ACLs', async () => {
  let run = await asAdmin(['add', '--allow', 'User:bob', '--operation', 'read', 'describe', '--topic', 'orders', '--pattern', 'prefixed']);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, 'added 2 ACLs\n');
  run = await asAdmin(['add', '--deny', 'User:*', '--operation', 'delete', '--group', '*', '--host', '10.0.0.1']);
  assert.equal(run.code, 0, run.stderr);

  run = await asAdmin(['list']);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(cells(run.stdout), [
    ['RESOURCE TYPE', 'PATTERN', 'NAME', 'PRINCIPAL', 'HOST', 'OPERATION', 'PERMISSION'],
    ['TOPIC', 'PREFIXED', 'orders', 'User:bob', '*', 'READ', 'ALLOW'],
    ['TOPIC', 'PREFIXED', 'orders', 'User:bob', '*', 'DESCRIBE', 'ALLOW'],
    ['GROUP', 'LITERAL', '*', 'User:*', '10.0.0.1', 'DELETE', 'DENY'],
  ]);
  run = await asAdmin(['list', '--topic', 'orders-eu', '--pattern', 'match', '--operation', 'read']);
  assert.deepEqual(cells(run.stdout).slice(1), [['TOPIC', 'PREFIXED', 'orders', 'User:bob', '*', 'READ', 'ALLOW']], 'the ACLs that apply to one topic');

  run = await asAdmin(['remove', '--principal', 'User:bob', '--operation', 'describe']);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(cells(run.stdout), [
    ['removed 1 ACL'],
    ['RESOURCE TYPE', 'PATTERN', 'NAME', 'PRINCIPAL', 'HOST', 'OPERATION', 'PERMISSION'],
    ['TOPIC', 'PREFIXED', 'orders', 'User:bob', '*', 'DESCRIBE', 'ALLOW'],
  ]);
  assert.equal(cells((await asAdmin(['list'])).stdout).length, 3);
});

test('refusals are one sentence on stderr and exit status 1', async () => {
  const bob = await runBrook(['acls', 'list', '--bootstrap', broker.bootstrap, '--user', 'bob'], 'bob-secret\n');
  assert.equal(bob.code, 1);
  assert.equal(bob.stderr, 'brook: the broker refused: CLUSTER_AUTHORIZATION_FAILED (31)\n');
  const wrong = await runBrook(['acls', 'list', '--bootstrap', broker.bootstrap, '--user', 'bob'], 'guess\n');
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /^brook: the broker at .* refused user 'bob'/);
  const none = await asAdmin(['add', '--allow', 'User:bob', '--operation', 'read']);
  assert.equal(none.stderr, 'brook: give one of --topic, --group, --transactional-id and --cluster.\n');
  const both = await asAdmin(['add', '--operation', 'read', '--topic', 't']);
  assert.equal(both.stderr, 'brook: give one of --allow <principal> and --deny <principal>.\n');
  const bad = await asAdmin(['add', '--allow', 'bob', '--operation', 'read', '--topic', 't']);
  assert.match(bad.stderr, /^brook: the broker refused: INVALID_REQUEST \(42\): Could not parse principal/);
});
