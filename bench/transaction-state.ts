/**
 * The transaction coordinator's cost now that each change of a transactional id is a record of
 * `__transaction_state`, written before the answer: one connection opens a transaction
 * (AddPartitionsToTxn, which stores Ongoing) and aborts it (EndTxn, which stores PrepareAbort,
 * writes the marker and stores CompleteAbort), one id after another. With 10 ids the reference is
 * a DescribeTransactions of the same id (the same round trip, writing nothing); with many ids it
 * is the 10-id broker, measured in the same rounds; under `--flush always` the 10-id broker
 * without it. A restart of the broker holding many ids (a clean stop, then the start reading
 * every id's state back) is timed against the 10-id one's.
 */
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../src/protocol/messages/describe-transactions.js';
import { BenchBroker } from './bench-broker.js';
import { WireTxnProducer } from '../test/helpers/wire-txn.js';
import { alternating, lowest, percentile, timed } from './measure.js';
import { compared, fmt, type Row } from './table.js';

const TOPIC = 'transactions';
/** EndTxn v3 keeps the producer's epoch (transactions v1), so each id is initialized once. */
const END_TXN_VERSION = 3;

interface Latencies {
  add: number[];
  end: number[];
  describe: number[];
}

/** A broker whose coordinator holds `ids` transactional ids, each with its producer. */
class TxnTarget {
  private constructor(
    readonly broker: BenchBroker,
    private readonly producers: readonly WireTxnProducer[],
  ) {}

  static async start(ids: number, flags: readonly string[] = []): Promise<TxnTarget> {
    const broker = await BenchBroker.start(flags);
    await broker.client.request(CreateTopicsRequest, CreateTopicsResponse, 5, {
      topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 5000,
      validateOnly: false,
    });
    const producers = Array.from({ length: ids }, (_, i) => new WireTxnProducer(broker.client, `txn-${i}`));
    for (const producer of producers) {
      const errorCode = await producer.init();
      if (errorCode !== 0) throw new Error(`InitProducerId for ${producer.transactionalId} refused: ${errorCode}`);
    }
    return new TxnTarget(broker, producers);
  }

  /** `count` transactions opened and aborted, one id after another, each with a DescribeTransactions of the id after it; µs each. */
  async round(count: number): Promise<Latencies> {
    const latencies: Latencies = { add: [], end: [], describe: [] };
    const client = this.broker.client;
    for (let i = 0; i < count; i++) {
      const producer = this.producers[i % this.producers.length]!;
      producer.reconnect(client);
      const added = await timed(latencies.add, () => producer.add(TOPIC, [0]));
      if (added.some((e) => e !== 0)) throw new Error(`AddPartitionsToTxn refused: ${added}`);
      const ended = await timed(latencies.end, () => producer.end(false, END_TXN_VERSION));
      if (ended !== 0) throw new Error(`EndTxn refused: ${ended}`);
      await timed(latencies.describe, () =>
        client.request(DescribeTransactionsRequest, DescribeTransactionsResponse, 0, { transactionalIds: [producer.transactionalId] }),
      );
    }
    return latencies;
  }
}

export async function transactionStateBench(smoke: boolean): Promise<Row[]> {
  const many = smoke ? 100 : 5_000;
  const transactions = smoke ? 100 : 2_000;
  const few = await TxnTarget.start(10);
  const lots = await TxnTarget.start(many);
  const flushed = await TxnTarget.start(10, ['--flush', 'always']);
  try {
    const [fewRounds, manyRounds, flushedRounds] = await alternating(smoke ? 1 : 3, [
      () => few.round(transactions),
      () => lots.round(transactions),
      () => flushed.round(transactions),
    ]);
    const [fewRestarts, manyRestarts] = await alternating(smoke ? 1 : 3, [() => few.broker.restart(), () => lots.broker.restart()]);
    // Each percentile from the least disturbed round.
    const p50 = (rounds: readonly Latencies[], key: keyof Latencies): number => lowest(rounds.map((r) => percentile(r[key], 50)));
    return [
      compared('AddPartitionsToTxn p50, 10 ids (µs)', p50(fewRounds!, 'add'), p50(fewRounds!, 'describe'), 'DescribeTransactions of the same'),
      compared('EndTxn abort p50, 10 ids (µs)', p50(fewRounds!, 'end'), p50(fewRounds!, 'describe'), 'DescribeTransactions of the same'),
      compared(`AddPartitionsToTxn p50, ${fmt(many)} ids (µs)`, p50(manyRounds!, 'add'), p50(fewRounds!, 'add'), '10 ids'),
      compared(`EndTxn abort p50, ${fmt(many)} ids (µs)`, p50(manyRounds!, 'end'), p50(fewRounds!, 'end'), '10 ids'),
      compared('EndTxn abort p50, 10 ids, --flush always (µs)', p50(flushedRounds!, 'end'), p50(fewRounds!, 'end'), '--flush none'),
      compared(`restart with ${fmt(many)} transactional ids (ms)`, lowest(manyRestarts!), lowest(fewRestarts!), '10 ids'),
    ];
  } finally {
    await few.broker.stop();
    await lots.broker.stop();
    await flushed.broker.stop();
  }
}
