/**
 * The web console over three nodes, in a real browser: the overview lists the nodes, where each
 * listens, whether it is live and how many partitions it leads; a topic's page shows each
 * partition's leader at its epoch, its replicas and those in sync, as leaders move and a node stops.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startBroker, type Broker } from '../src/index.js';
import { launchBrowser, screenshot } from './helpers/browser.js';
import { kafkajs } from './helpers/kafkajs.js';

let broker: Broker;
let browser: Browser;
let page: Page;
let base: string;

before(async () => {
  broker = await startBroker({ nodes: 3, consolePort: 0 });
  base = `http://127.0.0.1:${broker.consolePort}`;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
  const admin = kafkajs(broker.cluster.bootstraps[0]!).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'spread', numPartitions: 3, replicationFactor: 3 }] });
  await admin.disconnect();
});

after(async () => {
  await browser.close();
  await broker.close();
});

/** The text of each cell of each body row of the table `selector` finds. */
async function rows(selector: string): Promise<string[][]> {
  await page.locator(`${selector} tbody tr`).first().waitFor();
  return page.locator(`${selector} tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())));
}

test('the overview lists every node, where it listens, whether it is live and how much it leads', async () => {
  broker.cluster.moveLeader('spread', 0, 2);
  await broker.cluster.stopNode(3);
  try {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Nodes' }).waitFor();
    const addresses = broker.cluster.nodes.map((n) => n.bootstrap);
    // Partition 2 moved from node 3 to its next replica, node 1; 0 to node 2, 1 stays on 2.
    assert.deepEqual(await rows('table[aria-labelledby="nodes"]'), [
      ['1', addresses[0], 'live', '1 partition'],
      ['2', addresses[1], 'live', '2 partitions'],
      ['3', addresses[2], 'stopped', '0 partitions'],
    ]);
    await screenshot(page, 'overview-nodes');
  } finally {
    await broker.cluster.startNode(3);
  }
});

test("a topic's page shows each partition's leader at its epoch, its replicas and those in sync", async () => {
  await broker.cluster.stopNode(2);
  try {
    await page.goto(`${base}/topics/spread`);
    await page.getByRole('columnheader', { name: 'Leader (epoch)' }).waitFor();
    const cells = await rows('table:has(caption:text("Partitions"))');
    assert.deepEqual(
      cells.map((r) => r.slice(0, 4)),
      [
        // Partition 0 moved to 2 (epoch 1), then on 2's stop to its first live replica (epoch 2).
        ['0', `${broker.cluster.leaderOf('spread', 0)} (2)`, '1, 2, 3', '1, 3'],
        ['1', `${broker.cluster.leaderOf('spread', 1)} (1)`, '2, 3, 1', '3, 1'],
        ['2', '1 (1)', '3, 1, 2', '3, 1'],
      ],
    );
    await screenshot(page, 'topic-nodes');
  } finally {
    await broker.cluster.startNode(2);
  }
});
