/**
 * The web console in a real browser (Debian's chromium): each view against a broker that real
 * clients (kafkajs) use. Screenshots of each view go to artifacts/console/.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { startBroker, type Broker } from '../src/index.js';
import { launchBrowser, screenshot } from './helpers/browser.js';
import { kafkajs } from './helpers/kafkajs.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

let broker: Broker;
let browser: Browser;
let page: Page;
let base: string;

before(async () => {
  broker = await startBroker({ consolePort: 0 });
  base = `http://127.0.0.1:${broker.consolePort}`;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
});

after(async () => {
  await browser?.close();
  await broker?.close();
});

test('the overview shows the version, the listeners and charts of the metrics', async () => {
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  assert.equal(await page.locator('dt:has-text("Version") + dd').innerText(), `brook ${version}`);
  const kafka = page.getByRole('row', { name: /^Kafka/ });
  assert.deepEqual(await kafka.getByRole('cell').allInnerTexts(), ['Kafka', broker.bootstrap, 'PLAINTEXT']);
  assert.deepEqual(
    await page
      .getByRole('row', { name: /^Console/ })
      .getByRole('cell')
      .allInnerTexts(),
    ['Console', `${base}/`, 'HTTP'],
  );
  assert.equal(await page.getByRole('img', { name: /^(Requests|Bytes produced|Bytes fetched|Duplicates caught|Open connections),/ }).count(), 5);
  await screenshot(page, 'overview');
});

test('the topics page lists a topic a client created, with its partitions', async () => {
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3 }] });
  await admin.disconnect();
  await page.goto(`${base}/topics`);
  const row = page.getByRole('row', { name: /orders/ });
  await row.waitFor();
  assert.deepEqual(await row.getByRole('cell').allInnerTexts(), ['orders', '3', '0', 'Messages']);
  await screenshot(page, 'topics');
  await page.getByRole('link', { name: 'orders', exact: true }).click();
  await page.getByRole('heading', { name: 'Topic orders' }).waitFor();
  assert.equal(await page.getByRole('table', { name: 'Partitions' }).getByRole('row').count(), 4, 'a header row and one per partition');
  await screenshot(page, 'topic');
});

test('a topic created on the topics page is there for clients, and deleting it there removes it', async () => {
  await page.goto(`${base}/topics`);
  await page.getByLabel('Name', { exact: true }).fill('made-on-the-page');
  await page.getByLabel('Partitions', { exact: true }).fill('2');
  await page.getByLabel(/^Configs/).fill('retention.ms=3600000');
  await page.getByRole('button', { name: 'Create topic' }).click();
  await page.getByRole('status').getByText('Created made-on-the-page').waitFor();
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  try {
    const [described] = (await admin.fetchTopicMetadata({ topics: ['made-on-the-page'] })).topics;
    assert.equal(described?.partitions.length, 2);
    await page.getByRole('status').getByRole('link', { name: 'made-on-the-page' }).click();
    await page
      .getByRole('row', { name: /retention\.ms/ })
      .getByText('3600000')
      .waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete topic made-on-the-page' }).click();
    await page.getByRole('heading', { name: 'Topics' }).waitFor();
    assert.ok(!(await admin.listTopics()).includes('made-on-the-page'));
  } finally {
    await admin.disconnect();
  }
  await page.getByLabel('Name', { exact: true }).fill('bad/name');
  await page.getByRole('button', { name: 'Create topic' }).click();
  await page
    .getByRole('alert')
    .getByText(/^INVALID_TOPIC_EXCEPTION/)
    .waitFor();
});

test("the producers page shows a kafkajs idempotent producer's window, and counts its retry as a duplicate as it arrives", async () => {
  await page.goto(`${base}/producers`);
  await page.getByRole('heading', { name: 'Producers' }).waitFor();
  // The page is not reloaded from here on: what changes comes over its event stream.
  await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
  const producer = kafkajs(broker.bootstrap, 'payments-producer').producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true });
  await producer.connect();
  try {
    await producer.send({ topic: 'payments', acks: -1, messages: [{ value: 'first' }] });
    const table = page.getByRole('table', { name: 'payments partition 0' });
    const row = table.getByRole('row').nth(1);
    await row.locator('td.accepted', { hasText: '1' }).waitFor();
    const slots = row.getByRole('list', { name: /^window of producer/ });
    assert.deepEqual(await slots.getByRole('listitem').allInnerTexts(), ['0..0\n@0', '·', '·', '·', '·']);
    assert.equal(await row.locator('td.duplicate').innerText(), '0');

    // The broker writes the next batch but its answer is lost: kafkajs sends it again.
    const lost = broker.faults.add({ api: 'Produce', topic: 'payments', dropResponse: true, count: 1 });
    await producer.send({ topic: 'payments', acks: -1, messages: [{ value: 'second' }] });
    assert.equal(lost.fired, 1);
    await row.locator('td.duplicate', { hasText: '1' }).waitFor();
    assert.deepEqual(await slots.getByRole('listitem').allInnerTexts(), ['0..0\n@0', '1..1\n@1', '·', '·', '·']);
    assert.deepEqual(await row.locator('td.num').allInnerTexts(), ['0', '2', '1', '0', '0'], 'epoch, accepted, duplicate, out of order, fenced');
    assert.equal(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument), true, 'updated without a reload');
    await screenshot(page, 'producers');
  } finally {
    await producer.disconnect();
  }
});

test('API: a change sent as a form (as another site could) is refused; unknown paths are 404 JSON', async () => {
  const form = await fetch(`${base}/api/topics`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=x' });
  assert.equal(form.status, 415);
  const missing = await fetch(`${base}/api/nothing`);
  assert.equal(missing.status, 404);
  assert.match(((await missing.json()) as { error: string }).error, /no GET \/api\/nothing/);
  const noTopic = await fetch(`${base}/api/topics/absent`);
  assert.equal(noTopic.status, 404);
  assert.equal((await fetch(`${base}/api/topics/%E0%A4%A`)).status, 400);
});
