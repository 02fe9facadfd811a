/**
 * The web console's security in a real browser: with SASL users it shows nothing before a user
 * logs in with a password of the users file; with TLS it serves HTTPS with the broker's certificate.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { Browser } from 'playwright-core';
import { startBroker, type Broker } from '../src/index.js';
import { launchBrowser, screenshot } from './helpers/browser.js';
import { runBrook } from './helpers/cli.js';
import { makeTestCerts, type TestCerts } from './helpers/tls-certs.js';

let browser: Browser;
let certs: TestCerts;
const brokers: Broker[] = [];

before(async () => {
  browser = await launchBrowser();
  certs = await makeTestCerts();
});

after(async () => {
  await browser?.close();
  await Promise.all(brokers.map((b) => b.close()));
});

async function broker(options: Parameters<typeof startBroker>[0]): Promise<Broker> {
  const b = await startBroker({ consolePort: 0, ...options });
  brokers.push(b);
  return b;
}

test('with SASL users, the console shows nothing before a user logs in with a password from the users file', async () => {
  const usersFile = join(await mkdtemp(join(tmpdir(), 'brook-console-')), 'users.json');
  assert.equal((await runBrook(['add-user', '--users-file', usersFile, '--user', 'alice'], 'alice-secret\n')).code, 0);
  const b = await broker({ saslUsersFile: usersFile, failedAuthenticationDelayMs: 10 });
  const admin = new Kafka({
    brokers: [b.bootstrap],
    logLevel: logLevel.NOTHING,
    sasl: { mechanism: 'plain', username: 'alice', password: 'alice-secret' },
  }).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'secret-plans' }] });
  await admin.disconnect();
  const base = `http://127.0.0.1:${b.consolePort}`;

  const page = await browser.newPage();
  await page.goto(`${base}/topics`);
  await page.getByRole('heading', { name: 'brook console' }).waitFor();
  assert.equal(await page.getByRole('navigation').count(), 0, 'no views before logging in');
  assert.doesNotMatch(await page.content(), /secret-plans/);
  for (const path of ['/api/topics', '/api/overview', '/api/producers', '/api/events', '/api/topics/secret-plans/partitions/0/messages']) {
    const status = await page.evaluate(async (p) => (await fetch(p)).status, path);
    assert.equal(status, 401, path);
  }
  await page.getByLabel('User').fill('alice');
  await page.getByLabel('Password').fill('wrong');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('alert').getByText('wrong user or password').waitFor();
  await screenshot(page, 'login');

  await page.getByLabel('Password').fill('alice-secret');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('link', { name: 'secret-plans', exact: true }).waitFor();
  assert.equal(await page.evaluate(async () => (await fetch('/api/topics')).status), 200);

  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByRole('button', { name: 'Log in' }).waitFor();
  assert.equal(await page.evaluate(async () => (await fetch('/api/topics')).status), 401, 'the login ended');
  await page.close();
});

test('console logins guessed in parallel are answered a delay apart', async () => {
  const usersFile = join(await mkdtemp(join(tmpdir(), 'brook-console-')), 'users.json');
  assert.equal((await runBrook(['add-user', '--users-file', usersFile, '--user', 'alice'], 'alice-secret\n')).code, 0);
  const delayMs = 200;
  const b = await broker({ saslUsersFile: usersFile, failedAuthenticationDelayMs: delayMs });
  const login = async (password: string): Promise<number> =>
    (
      await fetch(`http://127.0.0.1:${b.consolePort}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'alice', password }),
      })
    ).status;
  const started = Date.now();
  const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => login(`guess-${i}`)));
  assert.deepEqual(new Set(statuses), new Set([401]));
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 10 * delayMs, `ten parallel guesses were all answered within ${elapsed} ms`);
  assert.equal(await login('alice-secret'), 200);
});

test('with an authorizer, only a super user may use the console, which goes past ACLs', async () => {
  const usersFile = join(await mkdtemp(join(tmpdir(), 'brook-console-')), 'users.json');
  for (const user of ['root', 'bob']) assert.equal((await runBrook(['add-user', '--users-file', usersFile, '--user', user], `${user}-secret\n`)).code, 0);
  const b = await broker({ saslUsersFile: usersFile, failedAuthenticationDelayMs: 10, authorizer: true, superUsers: ['User:root'] });
  const base = `http://127.0.0.1:${b.consolePort}`;
  const statusAs = async (user: string): Promise<number> => {
    const loggedIn = await fetch(`${base}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user, password: `${user}-secret` }),
    });
    assert.equal(loggedIn.status, 200);
    const cookie = loggedIn.headers.get('set-cookie')!.split(';')[0]!;
    return (await fetch(`${base}/api/topics`, { headers: { cookie } })).status;
  };
  assert.equal(await statusAs('bob'), 403);
  assert.equal(await statusAs('root'), 200);
});

test("with TLS, the console serves HTTPS with the broker's certificate", async () => {
  const b = await broker({ tls: { cert: certs.cert, key: certs.key, clientAuth: 'none' } });
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    request(`https://127.0.0.1:${b.consolePort}/api/overview`, { ca: certs.ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    })
      .on('error', reject)
      .end();
  });
  assert.equal(answer.status, 200);
  const overview = JSON.parse(answer.body) as { listeners: { name: string; security: string }[] };
  assert.deepEqual(
    overview.listeners.map((l) => [l.name, l.security]),
    [
      ['Kafka', 'SSL'],
      ['Console', 'HTTPS'],
    ],
  );
  await assert.rejects(fetch(`http://127.0.0.1:${b.consolePort}/api/overview`), 'plain HTTP is not served');
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(`https://127.0.0.1:${b.consolePort}/`);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await context.close();
});
