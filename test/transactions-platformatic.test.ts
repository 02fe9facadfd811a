/** @platformatic/kafka's transactional producer against the real broker, read back by its consumers of both isolation levels. */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { Consumer, FetchIsolationLevels, MessagesStreamModes, Producer, stringDeserializers, stringSerializers } from './helpers/platformatic.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';
import { TRANSACTION_PROFILES } from './helpers/transaction-profiles.js';

const TOPIC = 'plt-txn';

for (const { protocol, kafkaVersion } of TRANSACTION_PROFILES) {
  describe(`transactions ${protocol} (--kafka-version ${kafkaVersion})`, () => {
    let broker: Broker;

    before(async () => {
      broker = await startBroker({ kafkaVersion });
      const client = await WireClient.connect(broker.port);
      await createTopic(client, TOPIC, 2);
      client.close();
    });

    after(async () => {
      await broker.close();
    });

    /** Every value in the topic from the beginning, read at the isolation level until `count` came and a few more fetches brought nothing. */
    async function readValues(isolationLevel: number, count: number): Promise<string[]> {
      const consumer = new Consumer({
        groupId: `plt-txn-reader-${isolationLevel}`,
        clientId: `plt-txn-reader-${isolationLevel}`,
        bootstrapBrokers: [broker.bootstrap],
        deserializers: stringDeserializers,
        maxWaitTime: 100,
        isolationLevel,
      });
      const values: string[] = [];
      try {
        const stream = await consumer.consume({
          topics: [TOPIC],
          mode: MessagesStreamModes.EARLIEST,
          autocommit: false,
          sessionTimeout: 10_000,
          heartbeatInterval: 500,
        });
        let settle: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve, reject) => {
          stream.on('data', (message: { value: string }) => {
            values.push(message.value);
            // Once `count` came, wait a moment for any record that should not be there.
            if (values.length >= count) settle ??= setTimeout(resolve, 500);
          });
          stream.on('error', reject);
        });
        await stream.close();
      } finally {
        await consumer.close(true);
      }
      return values;
    }

    test('@platformatic/kafka transactions: committed records reach read_committed, aborted ones only read_uncommitted', async () => {
      const producer = new Producer({
        clientId: 'plt-txn',
        bootstrapBrokers: [broker.bootstrap],
        serializers: stringSerializers,
        idempotent: true,
        transactionalId: 'plt-txn-id',
      });
      const batch = (name: string) => Array.from({ length: 10 }, (_, i) => ({ topic: TOPIC, partition: i % 2, value: `${name}-${i}` }));
      try {
        const first = await producer.beginTransaction();
        await first.send({ messages: batch('committed-a').slice(0, 5) });
        await first.send({ messages: batch('committed-a').slice(5) });
        await first.commit();
        const second = await producer.beginTransaction();
        await second.send({ messages: batch('aborted') });
        await second.abort();
        const third = await producer.beginTransaction();
        await third.send({ messages: batch('committed-b') });
        await third.commit();
      } finally {
        await producer.close();
      }
      const committed = [...batch('committed-a'), ...batch('committed-b')].map((m) => m.value).sort();
      assert.deepEqual((await readValues(FetchIsolationLevels.READ_COMMITTED, committed.length)).sort(), committed);
      const all = [...batch('committed-a'), ...batch('aborted'), ...batch('committed-b')].map((m) => m.value).sort();
      assert.deepEqual((await readValues(FetchIsolationLevels.READ_UNCOMMITTED, all.length)).sort(), all);
    });
  });
}
