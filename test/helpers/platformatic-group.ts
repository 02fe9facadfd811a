/** @platformatic/kafka clients as the group tests use them: consumer-protocol members, and a producer spreading records evenly. */
import { Consumer, MessagesStreamModes, Producer, stringDeserializers, stringSerializers, assigned } from './platformatic.js';

/**
 * A consumer-protocol member (@platformatic/kafka, `groupProtocol: 'consumer'`) of `groupId` that
 * reads `topic` from the group's committed offsets (from the earliest where there are none) and
 * commits only when told to.
 */
export async function consumerMember(bootstrap: string, groupId: string, clientId: string, topic: string) {
  const consumer = new Consumer({
    groupId,
    clientId,
    bootstrapBrokers: [bootstrap],
    deserializers: stringDeserializers,
    maxWaitTime: 50,
    groupProtocol: 'consumer',
  });
  const stream = await consumer.consume({
    topics: [topic],
    mode: MessagesStreamModes.COMMITTED,
    fallbackMode: MessagesStreamModes.EARLIEST,
    autocommit: false,
  });
  return { consumer, stream };
}

export interface Reader {
  readonly name: string;
  /** The partitions the client reads now, as it knows them. */
  partitions(): number[];
  close(): Promise<void>;
}

/** Each value read → the names of the readers that read it, once per read. */
export type Seen = Map<string, string[]>;

/**
 * A consumer-protocol member that records each value it reads in `seen` and commits it before
 * reading on, skipping records of partitions it no longer owns (see `assigned`).
 */
export async function recordingReader(bootstrap: string, groupId: string, topic: string, name: string, seen: Seen, onRead: () => void): Promise<Reader> {
  const { consumer, stream } = await consumerMember(bootstrap, groupId, name, topic);
  const done = (async () => {
    for await (const message of stream) {
      if (!assigned(consumer, topic, message.partition)) continue;
      seen.set(message.value, [...(seen.get(message.value) ?? []), name]);
      await message.commit();
      onRead();
    }
  })();
  return {
    name,
    partitions: () => [...(consumer.assignments?.find((a) => a.topic === topic)?.partitions ?? [])].sort(),
    async close() {
      await stream.close();
      await done;
      await consumer.close();
    },
  };
}

/**
 * An idempotent producer of numbered records (key `k<n>`, value `v<n>`), record n to partition
 * n % `partitions`: after whole rounds of `partitions` records each partition holds as many.
 */
export function evenProducer(bootstrap: string, clientId: string, topic: string, partitions: number) {
  const producer = new Producer({ clientId, bootstrapBrokers: [bootstrap], serializers: stringSerializers, idempotent: true });
  let produced = 0;
  return {
    /** How many records were produced so far. */
    produced: () => produced,
    async produce(n: number): Promise<void> {
      const messages = Array.from({ length: n }, (_, i) => ({
        topic,
        key: `k${produced + i}`,
        value: `v${produced + i}`,
        partition: (produced + i) % partitions,
      }));
      produced += n;
      await producer.send({ messages });
    },
    close: () => producer.close(),
  };
}
