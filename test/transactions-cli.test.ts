/** `brook transactions`, the built binary, against a broker whose transactions are driven request by request. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { runBrook } from './helpers/cli.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';
import { WireTxnProducer } from './helpers/wire-txn.js';

const HEADINGS = ['TRANSACTIONAL ID', 'STATE', 'PRODUCER ID', 'EPOCH', 'TIMEOUT', 'OPEN FOR', 'PARTITIONS'];

let broker: Broker;
let client: WireClient;
const producers = new Map<string, WireTxnProducer>();

before(async () => {
  broker = await startBroker();
  client = await WireClient.connect(broker.port);
  await createTopic(client, 'ledger', 2);
  const start = async (id: string, timeoutMs: number) => {
    const txn = new WireTxnProducer(client, id, timeoutMs);
    assert.equal(await txn.init(), 0);
    producers.set(id, txn);
    return txn;
  };
  // "done" commits one transaction, "open" leaves one open on both partitions, "ready" begins none.
  const done = await start('done', 30_000);
  assert.deepEqual(await done.add('ledger', [0]), [0]);
  assert.equal((await done.send('ledger', 0, 1)).errorCode, 0);
  assert.equal(await done.end(true), 0);
  const open = await start('open', 600_000);
  assert.deepEqual(await open.add('ledger', [0, 1]), [0, 0]);
  assert.equal((await open.send('ledger', 1, 2)).errorCode, 0);
  await start('ready', 45_000);
});

after(async () => {
  client?.close();
  await broker?.close();
});

/** The printed table as cells; columns are separated by two spaces or more. */
function cells(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));
}

test("lists every transactional id with the coordinator's state, its producer, timeout and open partitions", async () => {
  const run = await runBrook(['transactions', '--bootstrap', broker.bootstrap]);
  assert.equal(run.code, 0, run.stderr);
  const [headings, done, open, ready] = cells(run.stdout);
  const id = (name: string) => String(producers.get(name)!.producerId);
  assert.deepEqual(headings, HEADINGS);
  assert.deepEqual(done, ['done', 'CompleteCommit', id('done'), '0', '30000 ms', '-', '-']);
  assert.deepEqual(ready, ['ready', 'Empty', id('ready'), '0', '45000 ms', '-', '-']);
  assert.deepEqual([...open!.slice(0, 5), open![6]], ['open', 'Ongoing', id('open'), '0', '600000 ms', 'ledger-0 ledger-1']);
  assert.match(open![5]!, /^\d+ s$/, 'how long it has been open');
});

test('a transaction aborted since shows as CompleteAbort with nothing open', async () => {
  const open = producers.get('open')!;
  assert.equal(await open.end(false), 0);
  const run = await runBrook(['transactions', '--bootstrap', broker.bootstrap]);
  assert.deepEqual(cells(run.stdout)[2], ['open', 'CompleteAbort', String(open.producerId), '0', '600000 ms', '-', '-']);
});

test('a broker with no transactional ids says so', async () => {
  const empty = await startBroker();
  try {
    const run = await runBrook(['transactions', '--bootstrap', empty.bootstrap]);
    assert.deepEqual([run.code, run.stdout, run.stderr], [0, 'no transactional ids\n', '']);
  } finally {
    await empty.close();
  }
});

test('an unreachable broker is one sentence and a failure', async () => {
  const gone = await startBroker();
  await gone.close();
  const run = await runBrook(['transactions', '--bootstrap', gone.bootstrap]);
  assert.deepEqual([run.code, run.stdout, run.stderr], [1, '', `brook: cannot reach a broker at ${gone.bootstrap} (ECONNREFUSED)\n`]);
});
