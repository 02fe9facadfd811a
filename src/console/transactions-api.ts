/** The Transactions view's data: each transactional id as the coordinator holds it, with its state's own name. */
import type { BrokerContext } from '../broker/broker-context.js';
import { matching, page } from './api-input.js';

export function listTransactions(broker: BrokerContext, query: URLSearchParams): unknown {
  const now = Date.now();
  const shown = page(
    matching([...broker.transactions.all()], (t) => t.transactionalId, query),
    query,
  );
  return {
    ...shown,
    items: shown.items.map((t) => ({
      transactionalId: t.transactionalId,
      state: t.state,
      producerId: String(t.producerId),
      epoch: t.epoch,
      partitions: t.partitions,
      groups: t.groups.map((g) => g.groupId),
      timeoutMs: t.timeoutMs,
      startMs: t.startMs,
      // How long the open transaction has been open; none is open before its first partition or group.
      ageMs: t.startMs < 0 ? null : now - t.startMs,
      updateMs: t.updateMs,
    })),
  };
}
