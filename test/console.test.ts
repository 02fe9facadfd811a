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
import { runBrook } from './helpers/cli.js';
import { kafkajs } from './helpers/kafkajs.js';
import { QUICK_HEARTBEATS } from './helpers/group-broker.js';
import { recordingReader, type Seen } from './helpers/platformatic-group.js';
import { WireClient } from './helpers/wire-client.js';
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../src/protocol/messages/consumer-group-heartbeat.js';
import { until } from './helpers/until.js';
import { TOPIC_CONFIGS } from '../src/settings/topic-configs.js';
import type { ConfigResourceTypes } from 'kafkajs';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

let broker: Broker;
let browser: Browser;
let page: Page;
let base: string;

before(async () => {
  broker = await startBroker({ consolePort: 0, ...QUICK_HEARTBEATS });
  base = `http://127.0.0.1:${broker.consolePort}`;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
});

after(async () => {
  await browser?.close();
  await broker?.close();
});

async function send(topic: string, messages: { key?: string; value: string }[]): Promise<void> {
  const producer = kafkajs(broker.bootstrap).producer({ allowAutoTopicCreation: true });
  await producer.connect();
  await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
}

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
  // Each chart names its unit and has axes: its values from 0 to the highest, the samples' times in UTC.
  assert.deepEqual(await page.locator('figure.chart figcaption').evaluateAll((captions) => captions.map((c) => c.textContent!.replace(/:.*/, ''))), [
    'Requests (per second)',
    'Bytes produced (bytes per second)',
    'Bytes fetched (bytes per second)',
    'Duplicates caught (since the start)',
    'Open connections (connections)',
  ]);
  const ticks = page.locator('figure.chart', { hasText: 'Open connections' }).locator('.ticks text');
  await ticks.nth(3).waitFor({ state: 'attached' });
  const samples = ((await (await fetch(`${base}/api/overview`)).json()) as { samples: { time: number; connections: number }[] }).samples;
  const [max, zero, first, last] = await ticks.allTextContents();
  assert.equal(zero, '0');
  assert.ok(Number(max) >= Math.max(1, ...samples.map((s) => s.connections)), `highest ${max}`);
  assert.equal(first, new Date(samples[0]!.time).toISOString().slice(11, 19), 'the first sample kept, in UTC');
  assert.match(last!, /^\d\d:\d\d:\d\d UTC$/);
  await screenshot(page, 'overview');
});

test('the topics page lists a topic a client created, with its partitions, and the internal topics apart', async () => {
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3 }] });
  // Looking up a group's coordinator creates __consumer_offsets.
  await admin.fetchOffsets({ groupId: 'billing', topics: ['orders'] });
  await admin.disconnect();
  await page.goto(`${base}/topics`);
  const topics = page.getByRole('table', { name: /^\d+ topics?$/ });
  const row = topics.getByRole('row', { name: /orders/ });
  await row.waitFor();
  assert.deepEqual(await row.getByRole('cell').allInnerTexts(), ['orders', '3', '0', 'Messages']);
  assert.equal(await topics.getByRole('row', { name: /__consumer_offsets/ }).count(), 0, 'not among the topics');
  const internal = page.getByRole('table', { name: '1 internal topic' }).getByRole('row', { name: /__consumer_offsets/ });
  assert.deepEqual(await internal.getByRole('cell').allInnerTexts(), ['__consumer_offsets', '50', '0', 'Messages']);
  await screenshot(page, 'topics');
  await page.getByRole('link', { name: '__consumer_offsets', exact: true }).click();
  await page.getByRole('heading', { name: 'Topic __consumer_offsets' }).waitFor();
  await page.getByText('An internal topic').waitFor();
  assert.equal(await page.getByRole('button', { name: /^Delete topic/ }).count(), 0, 'no delete button');
  await page.goto(`${base}/topics`);
  await page.getByRole('link', { name: 'orders', exact: true }).click();
  await page.getByRole('heading', { name: 'Topic orders' }).waitFor();
  const partitions = page.getByRole('table', { name: 'Partitions' }).getByRole('row');
  await partitions.nth(3).waitFor();
  assert.equal(await partitions.count(), 4, 'a header row and one per partition');
  await screenshot(page, 'topic');
});

test('the topic page shows every config with its unit and default, and changes one through IncrementalAlterConfigs', async () => {
  const retention = async (): Promise<string | undefined> => {
    const admin = kafkajs(broker.bootstrap).admin();
    await admin.connect();
    try {
      const TOPIC = 2 as ConfigResourceTypes;
      const described = await admin.describeConfigs({ resources: [{ type: TOPIC, name: 'orders', configNames: ['retention.ms'] }], includeSynonyms: false });
      return described.resources[0]?.configEntries[0]?.configValue;
    } finally {
      await admin.disconnect();
    }
  };
  await page.goto(`${base}/topics/orders`);
  const row = (name: string) => page.locator(`table.configs tr[data-config="${name}"]`);
  await row('retention.ms').waitFor();
  assert.equal(await page.locator('table.configs tbody tr').count(), TOPIC_CONFIGS.size, 'every topic config, set or not');
  assert.equal(await row('retention.ms').locator('td.value').innerText(), '604800000 ms (7d 0h)');
  assert.equal(await row('retention.ms').locator('td.default').innerText(), '604800000 ms (7d 0h)');
  assert.equal(await row('max.message.bytes').locator('td.value').innerText(), '104857600 bytes (100 MiB)');
  assert.equal(await row('message.timestamp.before.max.ms').locator('td.value').innerText(), `${2 ** 53 - 1} ms (no limit)`);
  assert.equal(await row('flush.ms').locator('td.value').innerText(), 'not set');

  await page.getByRole('button', { name: 'Change retention.ms' }).click();
  await page.getByLabel('New value of retention.ms').fill('3600000');
  await page.getByRole('button', { name: 'Save' }).click();
  await row('retention.ms').locator('td.value', { hasText: '3600000 ms (1h 0m)' }).waitFor();
  assert.equal(await row('retention.ms').getAttribute('class'), 'own');
  assert.equal(await row('retention.ms').locator('td.default').innerText(), '604800000 ms (7d 0h)');
  assert.equal(await retention(), '3600000', 'clients see the change');
  await screenshot(page, 'topic-configs');

  await page.getByRole('button', { name: 'Change segment.bytes' }).click();
  await page.getByLabel('New value of segment.bytes').fill('1');
  await page.getByRole('button', { name: 'Save' }).click();
  await row('segment.bytes')
    .getByRole('alert')
    .getByText(/^INVALID_CONFIG/)
    .waitFor();

  await page.getByRole('button', { name: 'Use the default of retention.ms' }).click();
  await row('retention.ms').locator('td.value', { hasText: '604800000 ms (7d 0h)' }).waitFor();
  assert.equal(await retention(), '604800000');
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
    await page.getByRole('heading', { name: 'Topics', exact: true }).waitFor();
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

test('the message browser shows produced values as text, JSON and hex, escapes HTML, and produces from the page', async () => {
  const html = '<img src=x onerror="document.title=\'pwned\'"><b>bold?</b>';
  await send('greetings', [
    { key: 'k1', value: 'hello brook' },
    { key: '<script>document.title="pwned"</script>', value: html },
    { value: '{"a":1,"b":[true]}' },
  ]);
  await page.goto(`${base}/topics/greetings/messages`);
  const rows = page.getByRole('table').getByRole('row');
  await page.getByLabel('value of offset 0').getByText('hello brook').waitFor();
  assert.equal(await page.getByLabel('value of offset 1').innerText(), html, 'the HTML is shown as text');
  assert.equal(await page.getByLabel('key of offset 1').innerText(), '<script>document.title="pwned"</script>');
  assert.equal(await page.locator('main img, main b, main script').count(), 0, 'no element was made from a message');
  assert.notEqual(await page.title(), 'pwned');
  await screenshot(page, 'messages');

  await page.getByLabel('Show as').selectOption('json');
  assert.equal(await page.getByLabel('value of offset 2').innerText(), '{\n  "a": 1,\n  "b": [\n    true\n  ]\n}');
  await page.getByLabel('Show as').selectOption('hex');
  assert.equal(await page.getByLabel('value of offset 0').innerText(), '68 65 6c 6c 6f 20 62 72 6f 6f 6b');
  await page.getByLabel('Show as').selectOption('text');

  await page.getByLabel('Value', { exact: true }).fill('x'.repeat(5000));
  await page.getByLabel(/^Headers/).fill('origin=the page');
  await page.getByRole('button', { name: 'Produce' }).click();
  await page.getByRole('status').getByText('Stored at offset 3').waitFor();
  await page.getByRole('button', { name: 'Show all 5000 bytes' }).click();
  await until(async () => (await page.getByLabel('value of offset 3').innerText()).length === 5000, 'the whole value is shown');
  assert.equal(await page.getByLabel('header origin').innerText(), 'the page');
  assert.equal(await rows.count(), 5);
  const consumer = kafkajs(broker.bootstrap).consumer({ groupId: 'greetings-check', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'greetings', fromBeginning: true });
  const read: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => void read.push(message.value?.toString() ?? '') });
  await until(() => read.length === 4, 'a client reads the message produced on the page');
  await consumer.disconnect();
  assert.equal(read[3], 'x'.repeat(5000));
});

test('the message browser picks a partition, shows every partition by time in compact rows, and reads from an ISO time', async () => {
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'spread', numPartitions: 3 }] });
  await admin.disconnect();
  const t0 = Math.floor(Date.now() / 1000) * 1000 - 60_000;
  const producer = kafkajs(broker.bootstrap).producer();
  await producer.connect();
  for (const [partition, value, at] of [
    [0, 'a', 0],
    [1, 'b', 1000],
    [2, 'c', 2000],
    [0, 'd', 3000],
  ] as const)
    await producer.send({ topic: 'spread', acks: -1, messages: [{ partition, value, timestamp: String(t0 + at) }] });
  await producer.disconnect();

  await page.goto(`${base}/topics/spread/messages`);
  await page.getByLabel('value of offset 0').getByText('a').waitFor();
  const picker = page.getByLabel('Partition', { exact: true });
  await picker.locator('option[value="all"]').waitFor({ state: 'attached' });
  assert.deepEqual(await picker.locator('option').allInnerTexts(), ['0', '1', '2', 'all, by time']);
  await picker.selectOption('2');
  await page.getByRole('button', { name: 'Read' }).click();
  await page.getByLabel('value of offset 0').getByText('c').waitFor();

  const values = () => page.locator('table.messages tbody pre.value[aria-label^="value"]').allInnerTexts();
  await picker.selectOption('all');
  await page.getByRole('button', { name: 'Read' }).click();
  await page.getByLabel('value of partition 0 offset 1').getByText('d').waitFor();
  assert.deepEqual(await values(), ['a', 'b', 'c', 'd'], 'oldest first across partitions');
  assert.deepEqual(await page.locator('table.messages tbody tr').evaluateAll((rows) => rows.map((r) => r.children[0]!.textContent)), ['0', '1', '2', '0']);
  // Compact: a record of short fields takes one line of text, its timestamp too.
  const row = await page.locator('table.messages tbody tr').first().boundingBox();
  const line = await page.locator('table.messages tbody tr time').first().boundingBox();
  assert.ok(row!.height < 2 * line!.height, `a row ${row!.height}px high, a line ${line!.height}px`);
  await screenshot(page, 'messages-all-partitions');

  // A time in ISO 8601, UTC: both as typed (Z) and as the table shows times.
  await page.getByRole('radio', { name: 'time' }).check();
  await page.getByLabel(/^Time/).fill(new Date(t0 + 1500).toISOString());
  await page.getByRole('button', { name: 'Read' }).click();
  await until(async () => (await values()).join() === 'c,d', 'the records from that time on, of every partition');
  await picker.selectOption('0');
  await page.getByLabel(/^Time/).fill(new Date(t0 + 1500).toISOString().replace('T', ' ').replace('Z', ' UTC'));
  await page.getByRole('button', { name: 'Read' }).click();
  await until(async () => (await values()).join() === 'd', "partition 0's records from that time on");
  await page.getByLabel(/^Time/).fill('yesterday');
  await page.getByRole('button', { name: 'Read' }).click();
  await page
    .getByRole('alert')
    .getByText(/must be ISO 8601/)
    .waitFor();
});

test('the message browser follows the end of a partition live', async () => {
  await send('ticks', [{ value: 'tick 0' }]);
  await page.goto(`${base}/topics/ticks/messages?from=end`);
  await page.getByLabel('value of offset 0').getByText('tick 0').waitFor();
  await send('ticks', [{ value: 'tick 1' }]);
  await page.getByLabel('value of offset 1').getByText('tick 1').waitFor();
});

test("the group page shows a running consumer's assignment, its committed offsets and its lag", async () => {
  await send(
    'events',
    [1, 2, 3, 4, 5].map((n) => ({ value: `event ${n}` })),
  );
  const kafka = kafkajs(broker.bootstrap, 'events-reader');
  const consumer = kafka.consumer({ groupId: 'readers', maxWaitTimeInMs: 100 });
  const admin = kafka.admin();
  await Promise.all([consumer.connect(), admin.connect()]);
  try {
    await consumer.subscribe({ topic: 'events', fromBeginning: true });
    await consumer.run({ eachMessage: async () => {} });
    await until(async () => (await admin.fetchOffsets({ groupId: 'readers', topics: ['events'] }))[0]?.partitions[0]?.offset === '5', 'the group commits 5');
    consumer.pause([{ topic: 'events' }]);
    await send(
      'events',
      [6, 7, 8].map((n) => ({ value: `event ${n}` })),
    );
    await page.goto(`${base}/groups`);
    await page
      .getByRole('row', { name: /readers/ })
      .getByRole('cell')
      .nth(4)
      .getByText('3')
      .waitFor();
    assert.equal(
      await page
        .getByRole('row', { name: /readers/ })
        .getByRole('cell')
        .nth(1)
        .innerText(),
      'classic',
    );
    await page.getByRole('link', { name: 'readers' }).click();
    const offsets = page.getByRole('table', { name: 'Committed offsets and lag' });
    await offsets.getByRole('row', { name: /events/ }).waitFor();
    assert.deepEqual(
      await offsets
        .getByRole('row', { name: /events/ })
        .getByRole('cell')
        .allInnerTexts(),
      ['events', '0', '5', '8', '3'],
    );
    assert.equal(await page.locator('dt:has-text("State") + dd').innerText(), 'Stable');
    assert.equal(await page.locator('dt:has-text("Group protocol") + dd').innerText(), 'classic');
    const member = page.getByRole('table', { name: 'Members and their assignments' }).getByRole('row').nth(1);
    assert.equal(await member.getByRole('cell').nth(3).innerText(), 'events [0]');
    await screenshot(page, 'group');
  } finally {
    await Promise.all([consumer.disconnect(), admin.disconnect()]);
  }
});

/** The facts a group page shows, by their names. */
async function facts(): Promise<Record<string, string>> {
  const names = await page.locator('dl.facts dt').allInnerTexts();
  const values = await page.locator('dl.facts dd').allInnerTexts();
  return Object.fromEntries(names.map((n, i) => [n, values[i]!]));
}

/** A member's row of the consumer group's members table: member id → the cells after it. */
async function memberRows(): Promise<Map<string, string[]>> {
  const rows = page.getByRole('table', { name: 'Members, their epochs and their partitions' }).getByRole('row');
  const cells = await Promise.all((await rows.all()).slice(1).map((r) => r.getByRole('cell').allInnerTexts()));
  return new Map(cells.map(([id, ...rest]) => [id!, rest]));
}

test("the group page shows a consumer-protocol group's epochs, assignor and each member's epoch, state and partitions", async () => {
  await send(
    'sensors',
    [1, 2, 3].map((n) => ({ value: `reading ${n}` })),
  );
  const read: Seen = new Map();
  const reader = await recordingReader(broker.bootstrap, 'modern-readers', 'sensors', 'sensor-reader', read, () => {});
  try {
    await until(() => read.size === 3, 'the consumer reads the three readings');
    await page.goto(`${base}/groups`);
    const listed = page.getByRole('row', { name: /modern-readers/ });
    await listed.waitFor();
    assert.deepEqual((await listed.getByRole('cell').allInnerTexts()).slice(0, 4), ['modern-readers', 'consumer', 'Stable', 'consumer']);
    await page.getByRole('link', { name: 'modern-readers' }).click();
    await page.getByRole('heading', { name: 'Consumer group modern-readers' }).waitFor();
    await page.getByRole('table', { name: 'Members, their epochs and their partitions' }).getByRole('row').nth(1).waitFor();
    const group = await facts();
    assert.equal(group['Group protocol'], 'consumer');
    assert.equal(group.State, 'Stable');
    assert.equal(group.Assignor, 'uniform');
    assert.equal(group.Members, '1');
    assert.equal(group['Group epoch'], group['Assignment epoch']);
    const members = [...(await memberRows())];
    assert.equal(members.length, 1);
    const [memberId, cells] = members[0]!;
    assert.ok(memberId);
    assert.deepEqual(cells, ['sensor-reader', '/127.0.0.1', group['Assignment epoch'], 'stable', 'sensors', 'sensors [0]', '—', 'sensors [0]']);
    const offsets = page.getByRole('table', { name: 'Committed offsets and lag' });
    assert.deepEqual(
      await offsets
        .getByRole('row', { name: /sensors/ })
        .getByRole('cell')
        .allInnerTexts(),
      ['sensors', '0', '3', '3', '0'],
    );
    await screenshot(page, 'consumer-group');
  } finally {
    await reader.close();
  }
});

test('the group page shows a consumer-protocol member that still owns what it must revoke, and the one waiting for it', async () => {
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'shared', numPartitions: 4 }] });
  await admin.disconnect();
  const wire = await WireClient.connect(broker.port);
  const beat = async (memberId: string, memberEpoch: number, owned: { topicId: string; partitions: number[] }[]): Promise<ConsumerGroupHeartbeatResponse> => {
    const r = await wire.request(ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, 1, {
      groupId: 'reconciling',
      memberId,
      memberEpoch,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: memberEpoch === 0 ? 60_000 : -1,
      subscribedTopicNames: memberEpoch === 0 ? ['shared'] : null,
      subscribedTopicRegex: null,
      serverAssignor: memberEpoch === 0 ? 'range' : null,
      topicPartitions: owned,
    });
    assert.equal(r.errorCode, 0);
    return r;
  };
  try {
    // The first member takes all four partitions; the second joins, and the first reports it still owns them all.
    const first = await beat('first-member', 0, []);
    const all = first.assignment!.topicPartitions;
    assert.equal(all[0]!.partitions.length, 4);
    await beat('second-member', 0, []);
    await beat('first-member', first.memberEpoch, all);
    await page.goto(`${base}/groups/reconciling`);
    await page.getByRole('table', { name: 'Members, their epochs and their partitions' }).getByRole('row').nth(2).waitFor();
    const group = await facts();
    assert.deepEqual([group['Group protocol'], group.State, group.Assignor], ['consumer', 'Reconciling', 'range']);
    const epoch = group['Assignment epoch']!;
    assert.equal(group['Group epoch'], epoch);
    const rows = await memberRows();
    assert.deepEqual(rows.get('first-member'), [
      'wire-test',
      '/127.0.0.1',
      String(first.memberEpoch),
      'unrevoked_partitions',
      'shared',
      'shared [0, 1]',
      'shared [2, 3]',
      'shared [0, 1]',
    ]);
    assert.deepEqual(rows.get('second-member'), ['wire-test', '/127.0.0.1', epoch, 'unreleased_partitions', 'shared', '—', '—', 'shared [2, 3]']);
    await screenshot(page, 'consumer-group-reconciling');
  } finally {
    wire.close();
  }
});

test('the replay page steps through a trace with the verdicts, rules and windows `brook replay` gives', async () => {
  const trace = [
    'producer=7 epoch=0 partition=p-0 seq=0 count=3',
    'producer=7 epoch=0 partition=p-0 seq=3 count=2',
    'producer=7 epoch=0 partition=p-0 seq=3 count=2',
    '# skipping ahead',
    'producer=7 epoch=0 partition=p-0 seq=9 count=1',
    'producer=8 epoch=0 partition=p-0 seq=5 count=1',
    'producer=7 epoch=1 partition=p-0 seq=3 count=1',
    'producer=7 epoch=0 partition=p-0 seq=3 count=3',
    'producer=7 epoch=1 partition=p-0 seq=0 count=1',
    'producer=7 epoch=0 partition=p-0 seq=5 count=1',
    'producer=7 epoch=0 partition=p-0',
  ];
  const cli = await runBrook(['replay', '--explain'], trace.join('\n') + '\n');
  const replies = cli.stdout.trim().split('\n');
  assert.deepEqual(
    replies.map((r) => r.split('  ')[0]),
    [
      'OK base=0',
      'OK base=3',
      'DUPLICATE base=3',
      'OUT_OF_ORDER',
      'OUT_OF_ORDER',
      'OUT_OF_ORDER',
      'OUT_OF_ORDER',
      'OK base=5',
      'FENCED',
      "ERROR missing field 'seq'",
    ],
  );
  const steps = replies.length;
  const rulesShown = new Set<string>();
  await page.goto(`${base}/replay`);
  await page.getByLabel('Batch lines').fill(trace.join('\n'));
  await page.getByRole('button', { name: 'Replay' }).click();
  await page.getByRole('heading', { name: `Step 1 of ${steps}` }).waitFor();
  const current = page.locator('.current');
  for (const [i, reply] of replies.entries()) {
    const [verdict, logEnd, window, rule] = reply.split('  ');
    await page.getByRole('heading', { name: `Step ${i + 1} of ${steps}` }).waitFor();
    assert.equal(await current.locator('.verdict strong').innerText(), verdict);
    if (rule !== undefined) {
      assert.equal(await current.locator('.verdict .explanation').innerText(), rule, 'the rule `brook replay --explain` names');
      rulesShown.add(rule.slice(0, 'rule N'.length));
    }
    if (logEnd !== undefined) {
      assert.match(await current.innerText(), new RegExp(`log end is ${logEnd!.slice('log_end='.length)}; producer \\d+ has epoch (\\d+|—) and window`));
      const shown = await current.getByRole('list', { name: 'window after this line' }).locator('.seq').allInnerTexts();
      assert.equal(shown.map((s) => `[${s}]`).join(' ') || '[]', window!.slice('window='.length));
    }
    if (i === 2) await screenshot(page, 'replay');
    if (i === 6) await screenshot(page, 'replay-rule-4');
    if (i + 1 < replies.length) await page.getByRole('button', { name: 'Next' }).click();
  }
  assert.match(await current.innerText(), /missing field/);
  assert.deepEqual([...rulesShown].sort(), ['rule 1', 'rule 2', 'rule 3', 'rule 4']);
});

/** Run in the page (the tests' TypeScript has no DOM types): the controls with no name a screen reader could say. */
const UNNAMED_CONTROLS = `[...document.querySelectorAll('input, select, textarea, button, a')]
  .filter((el) => (el.labels?.length ?? 0) === 0 && !el.getAttribute('aria-label') && !el.closest('label') && el.textContent.trim() === '')
  .map((el) => el.outerHTML)`;

test('every view can be used from the keyboard: a skip link first, and every control named', async () => {
  for (const path of [
    '/',
    '/topics',
    '/topics/orders',
    '/topics/orders/messages',
    '/groups',
    '/groups/readers',
    '/groups/modern-readers',
    '/producers',
    '/transactions',
    '/replay',
  ]) {
    await page.goto(`${base}${path}`);
    await page.locator('main h1').waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.textContent'), 'Skip to content', path);
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate('document.activeElement.id'), 'main', path);
    assert.deepEqual(await page.evaluate(UNNAMED_CONTROLS), [], path);
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
