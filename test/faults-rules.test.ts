/** Fault rules a broker refuses, each with a sentence naming what is wrong, and those it takes. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { startBroker, FaultRuleError, type Broker, type FaultRule } from '../src/index.js';
import { parseFaultSpec } from '../src/cli/fault-spec.js';
import { tempDir } from './helpers/log.js';

let broker: Broker;

before(async () => {
  broker = await startBroker();
});

after(() => broker.close());

const REFUSED: readonly [unknown, RegExp][] = [
  [{ api: 'Produse', dropResponse: true }, /names unknown API 'Produse'; brook serves Produce, Fetch, .*DescribeProducers, .*DescribeTopicPartitions/],
  [{ api: 99, dropResponse: true }, /names unknown API 99/],
  [{ api: 72, dropResponse: true }, /names unknown API 72; brook serves Produce/],
  [{ dropResponse: true }, /needs an api/],
  [{ api: 'Produce', error: 'NOT_A_LEADER' }, /names unknown error 'NOT_A_LEADER'; give Kafka's name of one \(such as NOT_LEADER_OR_FOLLOWER\) or its code$/],
  [{ api: 'Produce', error: 'NONE' }, /names error NONE, which is no error/],
  [{ api: 'Produce', error: 0 }, /has error 0; an error is Kafka's name of one or its code/],
  [{ api: 'Produce', error: 'NOT_LEADER_OR_FOLLOWER', delayMs: 100 }, /has 2 actions \(error, delayMs\); a rule takes one, so give a rule for each$/],
  [{ api: 'Produce' }, /needs an action: one of error, dropResponse, delayMs, closeConnection, hold, holdCheck$/],
  [{ api: 'Produce', hold: 'true' }, /has hold 'true'; it is true or absent/],
  [{ api: 'Produce', dropResponse: false }, /has dropResponse false; it is true or absent/],
  [{ api: 'Produce', delayMs: 0 }, /has delayMs 0; a delay is a whole number of ms from 1 to 2147483647/],
  [{ api: 'Produce', dropResponse: true, count: 0 }, /has count 0; a count is a whole number from 1$/],
  [{ api: 'Produce', dropResponse: true, probability: 1.5 }, /has probability 1.5; a probability is above 0 and at most 1$/],
  [{ api: 'Produce', dropResponse: true, seed: 7 }, /has a seed but no probability for it to draw/],
  [
    { api: 'Produce', dropResponse: true, topics: 'orders' },
    /has no field 'topics' \(did you mean 'topic'\?\); its fields are api, topic, partition, node, count, probability, seed, error, dropResponse, delayMs, closeConnection, hold, holdCheck$/,
  ],
  [{ api: 'Heartbeat', topic: 'orders', dropResponse: true }, /names topic 'orders', but Heartbeat requests name no topic$/],
  [{ api: 'Metadata', topic: 'orders', partition: 0, dropResponse: true }, /names partition 0, but Metadata requests name no partition$/],
  [{ api: 'Produce', partition: 0, dropResponse: true }, /names partition 0 but no topic$/],
  [{ api: 'Fetch', holdCheck: true }, /holds Fetch requests, but only Produce's batches are checked$/],
  ['Produce', /fault rule 'Produce' is not an object/],
  [{ api: 'Produce', node: 0, dropResponse: true }, /has node 0; a node is a whole number from 1$/],
  // One node serves: a rule naming another would never act.
  [{ api: 'Produce', node: 2, dropResponse: true }, /names node 2, but the broker serves node 1 only$/],
];

test('a rule with something wrong is refused with a sentence naming it', () => {
  for (const [rule, message] of REFUSED) {
    assert.throws(
      () => broker.faults.add(rule as FaultRule),
      (err: unknown) => err instanceof FaultRuleError && err instanceof TypeError && message.test(err.message),
      JSON.stringify(rule),
    );
  }
  assert.equal(
    broker.faults.add({ api: 0, error: 'not_leader_or_follower', topic: 'orders', partition: 2, count: 1 }).fired,
    0,
    'a key for the API, an error name in any case',
  );
  broker.faults.clear();
});

test('startBroker refuses a bad rule among its faults before it opens anything', async (t) => {
  // A temp directory of its own, where a data directory would be made: other test files make theirs meanwhile.
  const dir = await tempDir(t);
  const tmpdirWas = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  t.after(() => {
    if (tmpdirWas === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdirWas;
  });
  await assert.rejects(
    startBroker({ faults: [{ api: 'Produce', dropResponse: true }, { api: 'Produce', error: 'NOPE' } as FaultRule] }),
    /names unknown error 'NOPE'/,
  );
  await assert.rejects(startBroker({ faults: { api: 'Produce' } as unknown as FaultRule[] }), /option 'faults' cannot be .*: an array of fault rules/);
  assert.deepEqual(await readdir(dir), [], 'no data directory made');
});

test('--fault specs read as rules; one that does not is a sentence about it', () => {
  assert.deepEqual(parseFaultSpec('Produce,dropResponse,probability=5%,seed=7'), { api: 'Produce', dropResponse: true, probability: 0.05, seed: 7 });
  assert.deepEqual(parseFaultSpec('api=1,topic=orders,partition=0,error=6,count=3'), { api: 1, topic: 'orders', partition: 0, error: 6, count: 3 });
  assert.deepEqual(parseFaultSpec('api=Metadata,delayMs=250,probability=0.5'), { api: 'Metadata', delayMs: 250, probability: 0.5 });
  assert.deepEqual(parseFaultSpec('Heartbeat,closeConnection,count=1'), { api: 'Heartbeat', closeConnection: true, count: 1 });
  assert.deepEqual(parseFaultSpec('Fetch,node=2,closeConnection'), { api: 'Fetch', node: 2, closeConnection: true });
  const refused: [string, RegExp][] = [
    ['Produce,dropResponse,bogus', /^'bogus' is not NAME=VALUE$/],
    // A near miss is named.
    ['Produce,dropresponse', /^'dropresponse' is not NAME=VALUE \(did you mean 'dropResponse'\?\)$/],
    ['Produce,dropResponse,probabilty=5%', /^It has no field 'probabilty' \(did you mean 'probability'\?\)/],
    ['Produce,count=1,count=2,dropResponse', /^count is given twice$/],
    ['Produce,count=many,dropResponse', /^It has count 'many'; a count is a whole number from 1$/],
    ['Produce,dropResponse,probability=often', /^It has probability 'often'/],
    ['Produse,dropResponse', /^It names unknown API 'Produse'/],
  ];
  for (const [spec, message] of refused) assert.throws(() => parseFaultSpec(spec), { message }, spec);
});
