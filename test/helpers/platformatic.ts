/**
 * @platformatic/kafka 2.x is built for Node.js 22, and from Node 22 it uses just one API that
 * Node 20 lacks: Promise.withResolvers. Tests on Node 20 supply it before loading the client.
 */
const withResolvers = function <T>() {
  let resolve!: (value: T | PromiseLike<T>) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};
const PromiseWithResolvers = Promise as unknown as { withResolvers?: typeof withResolvers };
PromiseWithResolvers.withResolvers ??= withResolvers;

export * from '@platformatic/kafka';

/**
 * Whether the consumer is assigned the partition now. @platformatic/kafka 2.12 hands on the records
 * of a fetch sent before its assignment changed, even of a partition it has given up since, where
 * Kafka's Java consumer drops them; a test reading each record once skips those, and their next
 * owner reads them from the committed offset.
 */
export function assigned(consumer: { assignments: { topic: string; partitions: number[] }[] | null }, topic: string, partition: number): boolean {
  return consumer.assignments?.some((a) => a.topic === topic && a.partitions.includes(partition)) === true;
}
