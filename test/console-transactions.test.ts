/**
 * The web console's view of transactions, in a real browser, against a kafkajs transactional
 * producer: records flagged committed, aborted or open beside the markers, the open transaction
 * holding the last stable offset, and the transactions view following it live.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { Producer, Transaction } from 'kafkajs';
import { startBroker, type Broker } from '../src/index.js';
import { launchBrowser, screenshot } from './helpers/browser.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../src/protocol/messages/describe-transactions.js';
import { kafkajs } from './helpers/kafkajs.js';
import { WireClient } from './helpers/wire-client.js';

const TXN_ID = 'ledger-writer';

let broker: Broker;
let browser: Browser;
let page: Page;
let base: string;
let producer: Producer;
/** The transaction left open by `before`, committed by the last test. */
let open: Transaction;
let producerId: string;

before(async () => {
  broker = await startBroker({ consolePort: 0 });
  base = `http://127.0.0.1:${broker.consolePort}`;
  const kafka = kafkajs(broker.bootstrap, 'ledger');
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'ledger', numPartitions: 1 }] });
  await admin.disconnect();
  producer = kafka.producer({ transactionalId: TXN_ID, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 600_000 });
  await producer.connect();
  // Offsets: 0 "kept", 1 COMMIT, 2 "dropped", 3 ABORT, 4 "pending" (its transaction left open).
  const committed = await producer.transaction();
  await committed.send({ topic: 'ledger', acks: -1, messages: [{ value: 'kept' }] });
  await committed.commit();
  const aborted = await producer.transaction();
  await aborted.send({ topic: 'ledger', acks: -1, messages: [{ value: 'dropped' }] });
  await aborted.abort();
  open = await producer.transaction();
  await open.send({ topic: 'ledger', acks: -1, messages: [{ value: 'pending' }] });
  const client = await WireClient.connect(broker.port);
  const described = await client.request(DescribeTransactionsRequest, DescribeTransactionsResponse, 0, { transactionalIds: [TXN_ID] });
  client.close();
  producerId = String(described.transactionStates[0]!.producerId);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
});

after(async () => {
  await producer?.disconnect();
  await browser?.close();
  await broker?.close();
});

test('the message browser flags each record committed, aborted or open, and shows the COMMIT and ABORT markers as rows', async () => {
  await page.goto(`${base}/topics/ledger/messages`);
  await page.getByLabel('value of offset 4').getByText('pending').waitFor();
  const rows = page.getByRole('table').getByRole('row');
  const cells = async (n: number) => rows.nth(n).getByRole('cell').allInnerTexts();
  assert.equal(await rows.count(), 6, 'a header row, three records and two markers');
  const flags = await Promise.all([1, 2, 3, 4, 5].map(async (n) => (await cells(n)).at(-1)));
  assert.deepEqual(flags, ['committed', 'COMMIT', 'aborted', 'ABORT', 'open']);
  const commit = await cells(2);
  assert.equal(commit[0], '1');
  assert.match(commit[2]!, new RegExp(`^COMMIT marker: producer ${producerId}'s transaction ends here`));
  assert.deepEqual(commit.slice(3), [producerId, '0', '—', 'COMMIT']);
  assert.match((await cells(4))[2]!, new RegExp(`^ABORT marker: producer ${producerId}'s transaction ends here`));
  assert.equal(await page.getByLabel('value of offset 2').innerText(), 'dropped');
  assert.match(await page.getByRole('table').locator('caption').innerText(), /read_committed consumers read up to 4$/);
  await screenshot(page, 'messages-transactions');
});

test('the topic page says which open transaction holds the last stable offset below the high watermark', async () => {
  await page.goto(`${base}/topics/ledger`);
  const hold = page.locator('.lso-hold[data-partition="0"]');
  await hold.waitFor();
  assert.equal(
    (await hold.innerText()).replace(/\s+/g, ' ').trim(),
    `Partition 0: last stable offset 4 is below the high watermark 5 because the transaction of producer ${producerId} (transactional id ${TXN_ID}) ` +
      'is open from offset 4; read_committed consumers read nothing from there until it commits or aborts.',
  );
  await screenshot(page, 'topic-transactions');
});

test("the producers page shows the producer's open transaction", async () => {
  await page.goto(`${base}/producers?q=ledger`);
  const cell = page.locator(`tr[data-producer="${producerId}"] td.open-transaction`);
  await cell.waitFor();
  assert.equal(await cell.innerText(), `from offset 4, transactional id ${TXN_ID}`);
});

test('the transactions view shows the open transaction, and its row changes live when the producer commits', async () => {
  await page.goto(`${base}/transactions`);
  const row = page.locator(`tr[data-transactional-id="${TXN_ID}"]`);
  await row.locator('td.state strong', { hasText: 'Ongoing' }).waitFor();
  const cells = await row.getByRole('cell').allInnerTexts();
  assert.deepEqual(cells.slice(0, 5), [
    `Ongoing open: records written in it are held back from read_committed consumers`,
    producerId,
    '0',
    'ledger [0]',
    '10m 0s',
  ]);
  assert.notEqual(cells[5], '—', 'how long it has been open');
  await screenshot(page, 'transactions');
  // The page is not reloaded from here on: what changes comes over its event stream.
  await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
  await open.commit();
  await row.locator('td.state strong', { hasText: 'CompleteCommit' }).waitFor();
  assert.deepEqual((await row.getByRole('cell').allInnerTexts()).slice(3, 6), ['none', '10m 0s', '—'], 'no partitions and nothing open');
  assert.equal(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument), true, 'updated without a reload');
  await screenshot(page, 'transactions-committed');

  await page.goto(`${base}/topics/ledger/messages`);
  await page.getByLabel('value of offset 4').getByText('pending').waitFor();
  assert.deepEqual((await page.getByRole('table').getByRole('row').nth(6).getByRole('cell').allInnerTexts()).at(-1), 'COMMIT');
  assert.equal((await page.getByRole('table').getByRole('row').nth(5).getByRole('cell').allInnerTexts()).at(-1), 'committed');
});

test('the topics list counts records, not the offsets that markers take, from the log start on', async () => {
  // ledger holds kept, COMMIT, dropped, ABORT, pending, COMMIT: six offsets, three records.
  const cells = () =>
    page
      .getByRole('row', { name: /^ledger/ })
      .getByRole('cell')
      .allInnerTexts();
  await page.goto(`${base}/topics`);
  await page.getByRole('row', { name: /^ledger/ }).waitFor();
  assert.deepEqual(await cells(), ['ledger', '1', '3', 'Messages']);
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  await admin.fetchTopicMetadata({ topics: ['ledger'] });
  await admin.deleteTopicRecords({ topic: 'ledger', partitions: [{ partition: 0, offset: '3' }] });
  await admin.disconnect();
  await page.reload();
  await page.getByRole('row', { name: /^ledger/ }).waitFor();
  assert.deepEqual(await cells(), ['ledger', '1', '1', 'Messages'], 'pending alone is left from offset 3');
});
