/** kafkajs wiring for tests: quiet logs, and a consumer that collects a topic to a known count. */
import { Kafka, logLevel, type Consumer } from 'kafkajs';

export function kafkajs(bootstrap: string, clientId = 'brook-test'): Kafka {
  return new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 50 } });
}

export interface Consumed {
  readonly partition: number;
  readonly offset: number;
  readonly value: string;
}

/** Reads `topic` from the beginning in group `groupId` until `count` messages came, then disconnects. */
export async function consumeAll(kafka: Kafka, topic: string, groupId: string, count: number, timeoutMs = 30_000): Promise<Consumed[]> {
  const consumer: Consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen: Consumed[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`consumed ${seen.length} of ${count} in time`)), timeoutMs);
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          seen.push({ partition, offset: Number(message.offset), value: message.value?.toString() ?? '' });
          if (seen.length >= count) {
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
