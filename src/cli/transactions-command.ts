/**
 * `brook transactions`: every transactional id a broker's coordinator holds, in its state names,
 * asked over the Kafka protocol (ListTransactions, then DescribeTransactions).
 */
import type { Command } from 'commander';
import { ErrorCode, errorCodeName } from '../protocol/error-codes.js';
import {
  DescribeTransactionsRequest,
  DescribeTransactionsResponse,
  type DescribeTransactionsResponseTransactionState,
} from '../protocol/messages/describe-transactions.js';
import { ListTransactionsRequest, ListTransactionsResponse } from '../protocol/messages/list-transactions.js';
import { BrokerClient, DEFAULT_BOOTSTRAP } from './broker-client.js';
import { textTable } from './text-table.js';

const HEADINGS = ['TRANSACTIONAL ID', 'STATE', 'PRODUCER ID', 'EPOCH', 'TIMEOUT', 'OPEN FOR', 'PARTITIONS'];

export function addTransactionsCommand(program: Command): void {
  program
    .command('transactions')
    .description("show every transactional id: the coordinator's state, producer id and epoch, timeout, how long its transaction is open, its partitions")
    .option('--bootstrap <host:port>', 'the broker to ask', DEFAULT_BOOTSTRAP)
    .action(async (o: { bootstrap: string }) => {
      const states = await BrokerClient.asking(o.bootstrap, async (client) => {
        const listed = await client.request(ListTransactionsRequest, ListTransactionsResponse, 0, {
          stateFilters: [],
          producerIdFilters: [],
          durationFilter: -1n,
        });
        if (listed.errorCode !== ErrorCode.NONE)
          throw new Error(`the broker refused to list transactions (error ${errorCodeName(listed.errorCode) ?? listed.errorCode})`);
        const ids = listed.transactionStates.map((t) => t.transactionalId).sort();
        if (ids.length === 0) return [];
        return (await client.request(DescribeTransactionsRequest, DescribeTransactionsResponse, 0, { transactionalIds: ids })).transactionStates;
      });
      process.stdout.write(states.length === 0 ? 'no transactional ids\n' : textTable(HEADINGS, states.map(row)));
    });
}

function row(t: DescribeTransactionsResponseTransactionState): string[] {
  // An id ended between the list and the description is shown by its error.
  if (t.errorCode !== ErrorCode.NONE) return [t.transactionalId, errorCodeName(t.errorCode) ?? String(t.errorCode), '-', '-', '-', '-', '-'];
  const start = Number(t.transactionStartTimeMs);
  return [
    t.transactionalId,
    t.transactionState,
    String(t.producerId),
    String(t.producerEpoch),
    `${t.transactionTimeoutMs} ms`,
    start < 0 ? '-' : `${Math.max(0, Math.floor((Date.now() - start) / 1000))} s`,
    t.topics.flatMap((topic) => topic.partitions.map((p) => `${topic.topic}-${p}`)).join(' ') || '-',
  ];
}
