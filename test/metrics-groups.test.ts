/**
 * The group coordinator's metrics by protocol, scraped while real clients of both protocols read:
 * kafkajs (classic) and @platformatic/kafka with `groupProtocol: 'consumer'` (KIP-848). Named
 * after Kafka's GroupCoordinatorMetrics.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Consumer as KafkajsConsumer } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { kafkajs } from './helpers/kafkajs.js';
import { QUICK_HEARTBEATS } from './helpers/group-broker.js';
import { recordingReader, type Seen } from './helpers/platformatic-group.js';
import { scrape, type Samples } from './helpers/scrape.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

const TOPIC = 'metered';

let broker: Broker;
let wire: WireClient;

before(async () => {
  broker = await startBroker({ metricsPort: 0, ...QUICK_HEARTBEATS });
  wire = await WireClient.connect(broker.port);
  await createTopic(wire, TOPIC, 2);
  const producer = kafkajs(broker.bootstrap).producer();
  await producer.connect();
  await producer.send({ topic: TOPIC, messages: [0, 1, 0, 1].map((partition, i) => ({ partition, value: `v${i}` })) });
  await producer.disconnect();
});

after(async () => {
  wire.close();
  await broker.close();
});

const samples = (): Promise<Samples> => scrape(broker.metricsPort!);

/** The samples of `name` by label, absent ones left out. */
function labelled(s: Samples, name: string, label: string, values: readonly string[]): Record<string, number | undefined> {
  return Object.fromEntries(values.map((v) => [v, s.get(`${name}{${label}="${v}"}`)]));
}

const CLASSIC_STATES = ['PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead', 'Empty'];
const CONSUMER_STATES = ['Empty', 'Assigning', 'Reconciling', 'Stable', 'Dead'];

test('groups are counted by protocol and state, their rebalances by protocol, and their committed offsets', async () => {
  const start = await samples();
  assert.deepEqual(labelled(start, 'brook_group_count', 'protocol', ['classic', 'consumer']), { classic: 0, consumer: 0 });
  assert.deepEqual(labelled(start, 'brook_classic_group_count', 'state', CLASSIC_STATES), Object.fromEntries(CLASSIC_STATES.map((s) => [s, 0])));
  assert.deepEqual(labelled(start, 'brook_consumer_group_count', 'state', CONSUMER_STATES), Object.fromEntries(CONSUMER_STATES.map((s) => [s, 0])));
  assert.equal(start.get('brook_group_completed_rebalances_total'), 0);
  assert.equal(start.get('brook_consumer_group_rebalances_total'), 0);
  assert.equal(start.get('brook_group_offsets'), 0);

  // A classic group (kafkajs) reads everything and commits.
  const classic: KafkajsConsumer = kafkajs(broker.bootstrap).consumer({ groupId: 'classic-readers', maxWaitTimeInMs: 100 });
  await classic.connect();
  await classic.subscribe({ topic: TOPIC, fromBeginning: true });
  let classicRead = 0;
  await classic.run({
    eachMessage: async () => {
      classicRead++;
    },
  });
  // A consumer-protocol group (@platformatic/kafka) reads everything and commits each record.
  const modernRead: Seen = new Map();
  const modern = await recordingReader(broker.bootstrap, 'consumer-readers', TOPIC, 'modern', modernRead, () => {});
  try {
    await until(async () => {
      const s = await samples();
      return classicRead === 4 && modernRead.size === 4 && s.get('brook_group_offsets') === 4 && s.get('brook_consumer_group_count{state="Stable"}') === 1;
    }, 'both groups read every record and committed it, the consumer group Stable');
    const stable = await samples();
    assert.deepEqual(labelled(stable, 'brook_group_count', 'protocol', ['classic', 'consumer']), { classic: 1, consumer: 1 });
    assert.equal(stable.get('brook_classic_group_count{state="Stable"}'), 1);
    assert.ok(stable.get('brook_group_completed_rebalances_total')! >= 1, 'the classic group rebalanced to take its member');
    const bumps = stable.get('brook_consumer_group_rebalances_total')!;
    assert.ok(bumps >= 1, 'the consumer group rebalanced to take its member');

    await modern.close();
    const left = await samples();
    assert.equal(left.get('brook_consumer_group_rebalances_total'), bumps + 1, "the member's leave is one rebalance");
    assert.equal(left.get('brook_consumer_group_count{state="Empty"}'), 1);
    assert.equal(left.get('brook_consumer_group_count{state="Stable"}'), 0);
  } finally {
    await classic.disconnect();
  }
  const end = await samples();
  assert.deepEqual(
    [end.get('brook_classic_group_count{state="Empty"}'), end.get('brook_classic_group_count{state="Stable"}')],
    [1, 0],
    'the classic group is Empty once its member left',
  );
  assert.equal(end.get('brook_group_offsets'), 4, 'the committed offsets stay with the Empty groups');
});
