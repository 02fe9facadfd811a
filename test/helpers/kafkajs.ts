/** kafkajs wiring for tests: quiet logs, and a consumer that collects a topic to a known count or message. */
import { Kafka, logLevel, type Admin, type Consumer, type Message } from 'kafkajs';

export function kafkajs(bootstrap: string, clientId = 'brook-test'): Kafka {
  return new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 50 } });
}

/** A connected admin client that created `topic` with `numPartitions`, once `messages` were produced to it; the caller disconnects it. */
export async function adminWithTopic(kafka: Kafka, topic: string, numPartitions: number, messages: Message[]): Promise<Admin> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions }] });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages });
  await producer.disconnect();
  return admin;
}

export interface Consumed {
  readonly partition: number;
  readonly offset: number;
  readonly value: string;
}

/** Reads `topic` from the beginning in group `groupId` until `count` messages came, then disconnects. */
export function consumeAll(kafka: Kafka, topic: string, groupId: string, count: number, timeoutMs = 30_000): Promise<Consumed[]> {
  return consumeUntil(kafka, topic, groupId, (seen) => seen.length >= count, timeoutMs);
}

/** Reads `topic` from the beginning in group `groupId` until `done` holds of the messages come so far, then disconnects. */
export async function consumeUntil(
  kafka: Kafka,
  topic: string,
  groupId: string,
  done: (seen: readonly Consumed[]) => boolean,
  timeoutMs = 30_000,
): Promise<Consumed[]> {
  const consumer: Consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen: Consumed[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`consumed ${seen.length} messages, not all that were awaited, in time`)), timeoutMs);
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          seen.push({ partition, offset: Number(message.offset), value: message.value?.toString() ?? '' });
          if (done(seen)) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}
