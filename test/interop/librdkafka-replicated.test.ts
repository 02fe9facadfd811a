/**
 * librdkafka's own integration tests 0107 (a topic deleted and created again under a consumer
 * group and a producer) and 0111 (a producer waiting for a topic created late), which create
 * their topics with replication factor 3: run against three nodes, with topics created only when
 * asked (their scenario "noautocreate"). Topics are created and deleted by a stand-in for Kafka's
 * kafka-topics.sh (clients/kafka/bin), through brook's CreateTopics and DeleteTopics. They run
 * only when librdkafka's sources are named (librdkafka-sources.ts says how).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../../src/broker/start-broker.js';
import { buildLibrdkafkaTests, howToRun, LIBRDKAFKA_LIBRARY, LIBRDKAFKA_SOURCES, tail, type LibrdkafkaTests } from './librdkafka-sources.js';

const FILE = 'test/interop/librdkafka-replicated.test.ts';
const skip = LIBRDKAFKA_SOURCES === undefined ? `opt-in, as it builds librdkafka's test runner: ${howToRun(FILE)}` : false;

/** Runs librdkafka's test `number` against a fresh three-node broker; returns all it printed. */
async function runAgainstThreeNodes(t: { after: (fn: () => Promise<void>) => void }, number: string): Promise<string> {
  const tests: LibrdkafkaTests = await buildLibrdkafkaTests(['0107-topic_recreate.c', '0111-delay_create_topics.cpp'], FILE);
  const broker: Broker = await startBroker({ nodes: 3, autoCreateTopics: false });
  t.after(async () => {
    await broker.close();
    await tests.remove();
  });
  const { code, output } = await tests.run(number, broker.cluster.bootstraps.join(','), { TEST_SCENARIO: 'noautocreate' });
  assert.equal(code, 0, `${number} failed:\n${tail(output)}`);
  return output;
}

test(
  "librdkafka's test 0111: a message produced before its topic exists is delivered once the topic is created with replication factor 3",
  { skip, timeout: 300_000 },
  async (t) => {
    const output = await runAgainstThreeNodes(t, '0111');
    assert.equal(output.match(/\[ Test with timeout_too_short=(true|false): PASS \]/g)?.length, 2, tail(output));
  },
);

test(
  "librdkafka's test 0107: a topic of replication factor 3 deleted and created again with fewer partitions under a consumer group",
  {
    skip,
    // librdkafka 2.0.2's own bug, which Kafka's answers trigger alike: in the first round the
    // group is not rebalanced (2.0.2 checks its subscription only on the periodic metadata
    // refresh, every 5 minutes), so at close the consumer still holds partitions 3-9, which the
    // recreated topic (3 partitions) no longer has. Stopping each one leaves a version barrier
    // (rd_kafka_toppar_op_version_bump) in its fetch queue, no longer forwarded; the barrier holds
    // the partition, the partition its leader's broker handle, and rd_kafka_destroy waits for
    // those handles for ever. librdkafka 2.1.0 purges that queue when the group lets go of a
    // removed partition (confluentinc/librdkafka#4187, reworked in #4724); 2.0.2 built with such
    // a purge passes this test against three nodes, and so does 2.1.0 (librdkafka-sources.ts
    // says how to run the tests with it).
    todo:
      LIBRDKAFKA_LIBRARY === undefined
        ? 'librdkafka 2.0.2 hangs closing a consumer of partitions the recreated topic no longer has (fixed in librdkafka 2.1.0)'
        : false,
    timeout: 400_000,
  },
  async (t) => {
    const output = await runAgainstThreeNodes(t, '0107');
    assert.equal(output.match(/\[ Test topic create\(\d+ parts\)\+delete\+create\(\d+ parts\): PASS \]/g)?.length, 2, tail(output));
  },
);
