/** The Producers view's data: per partition, each idempotent producer's epoch, window, last write, open transaction and Produce's decisions about it. */
import type { BrokerContext } from '../broker/broker-context.js';
import { matching, page } from './api-input.js';
import { openTransactionOf } from './open-transactions.js';

export function listProducers(broker: BrokerContext, query: URLSearchParams): unknown {
  const partitions = matching(broker.storage.topics(), (t) => t.name, query)
    .flatMap((t) => Array.from({ length: t.partitions }, (_, partition) => ({ topic: t.name, partition })))
    .filter(({ topic, partition }) => hasProducers(broker, topic, partition));
  const shown = page(partitions, query);
  return { ...shown, items: shown.items.map(({ topic, partition }) => ({ topic, partition, producers: producersOf(broker, topic, partition) })) };
}

function hasProducers(broker: BrokerContext, topic: string, partition: number): boolean {
  const log = broker.storage.partition(topic, partition);
  return log !== undefined && !log.producers()[Symbol.iterator]().next().done;
}

export function producersOf(broker: BrokerContext, topic: string, partition: number): unknown[] {
  const held = broker.partitions.get(topic, partition);
  if (held === undefined) return [];
  const log = held.log;
  return [...log.producers()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([producerId, entry]) => {
      const counts = held.producerCounts.of(producerId);
      return {
        producerId: String(producerId),
        epoch: entry.state.epoch,
        window: entry.state.window,
        lastTimestamp: entry.lastTimestamp,
        writtenAt: entry.writtenAt,
        openTransaction: openTransactionOf(broker, log, producerId),
        counts:
          counts === undefined
            ? { accepted: 0, duplicate: 0, outOfOrder: 0, fenced: 0 }
            : { accepted: counts.append, duplicate: counts.duplicate, outOfOrder: counts.out_of_order, fenced: counts.fenced },
      };
    });
}
