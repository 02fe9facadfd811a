import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DEBIAN_PYTHON, run } from '../helpers/external.js';
import { runBrook } from '../helpers/cli.js';
import { startServe, tempDataDir, type ServeProcess } from '../helpers/serve-process.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';

let certs: TestCerts;
let serve: ServeProcess;

before(async () => {
  certs = await makeTestCerts();
  const usersFile = join(await tempDataDir(), 'users.json');
  assert.equal((await runBrook(['add-user', '--users-file', usersFile, '--user', 'carol'], 'carol-secret\n')).code, 0);
  serve = await startServe([
    '--tls-cert',
    certs.certPath,
    '--tls-key',
    certs.keyPath,
    '--sasl-users-file',
    usersFile,
    '--failed-authentication-delay-ms',
    '500',
  ]);
});
after(async () => {
  await serve.stop();
});

const kcatSecurity = (mechanism: string, password: string): string[] => [
  '-X',
  'security.protocol=SASL_SSL',
  '-X',
  `ssl.ca.location=${certs.caPath}`,
  '-X',
  `sasl.mechanisms=${mechanism}`,
  '-X',
  'sasl.username=carol',
  '-X',
  `sasl.password=${password}`,
];

test('kcat over TLS with SCRAM: idempotent produce and read back', async () => {
  for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512', 'PLAIN']) {
    const produced = await run(
      'kcat',
      ['-P', '-b', serve.bootstrap, '-t', 'secured', '-X', 'enable.idempotence=true', ...kcatSecurity(mechanism, 'carol-secret')],
      `via-${mechanism}\n`,
    );
    assert.equal(produced.code, 0, produced.stderr);
  }
  const consumed = await run('kcat', ['-C', '-b', serve.bootstrap, '-t', 'secured', '-o', 'beginning', '-e', ...kcatSecurity('SCRAM-SHA-256', 'carol-secret')]);
  assert.equal(consumed.code, 0, consumed.stderr);
  assert.deepEqual(consumed.stdout.trimEnd().split('\n'), ['via-SCRAM-SHA-256', 'via-SCRAM-SHA-512', 'via-PLAIN']);
});

test('kcat with a wrong password is refused by the broker and writes nothing', async () => {
  const produced = await run(
    'kcat',
    ['-P', '-b', serve.bootstrap, '-t', 'secured', '-X', 'message.timeout.ms=4000', ...kcatSecurity('SCRAM-SHA-256', 'guess')],
    'intruder\n',
  );
  assert.match(produced.stderr, /Authentication failure|SASL authentication error/);
  const consumed = await run('kcat', ['-C', '-b', serve.bootstrap, '-t', 'secured', '-o', 'beginning', '-e', ...kcatSecurity('SCRAM-SHA-512', 'carol-secret')]);
  assert.doesNotMatch(consumed.stdout, /intruder/);
});

test('kafka-python over TLS with SCRAM and PLAIN (SaslHandshake v0 with bare tokens)', async () => {
  const script = `
import ssl, sys
from kafka import KafkaProducer
for mechanism in ['PLAIN', 'SCRAM-SHA-256']:
    p = KafkaProducer(bootstrap_servers=sys.argv[1], security_protocol='SASL_SSL', ssl_cafile=sys.argv[2],
                      sasl_mechanism=mechanism, sasl_plain_username='carol', sasl_plain_password='carol-secret')
    print(p.send('secured-python', b'x').get(timeout=15).offset)
    p.close()
`;
  const r = await run(DEBIAN_PYTHON, ['-c', script, serve.bootstrap, certs.caPath]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), ['0', '1']);
});
