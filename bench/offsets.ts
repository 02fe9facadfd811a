/**
 * OffsetCommit latency with few groups and with many: one connection commits four partitions for
 * one group after another, each commit answered before the next is sent. With 10 groups the
 * reference is an OffsetFetch of the same partitions (the same round trip, writing nothing);
 * with many groups it is the 10-group broker, measured in the same rounds. Under `--flush always`
 * the reference is the 10-group broker without it. A restart of the broker holding many groups
 * (a clean stop, then the start reading every group's offsets back) is timed against the 10-group one's.
 */
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../src/protocol/messages/offset-fetch.js';
import { BenchBroker } from './bench-broker.js';
import { alternating, lowest, percentile, timed } from './measure.js';
import { compared, fmt, type Row } from './table.js';
import { adminCommit } from '../test/helpers/wire-commit.js';

const TOPIC = 'offsets';
const PARTITIONS = [0, 1, 2, 3];
/** Commits sent before their answers are read, while the groups are filled in. */
const FILL_WINDOW = 500;

interface Latencies {
  commit: number[];
  fetch: number[];
}

const commitRequest = (groupId: string, offset: bigint): OffsetCommitRequest => adminCommit(groupId, TOPIC, PARTITIONS, offset);

const fetchRequest = (groupId: string): OffsetFetchRequest => ({
  groupId,
  topics: [{ name: TOPIC, partitionIndexes: PARTITIONS }],
  groups: [],
  requireStable: false,
});

/** A broker whose store holds `groups` groups, each with four committed offsets. */
class CommitTarget {
  private offset = 0n;

  private constructor(
    readonly broker: BenchBroker,
    readonly groups: number,
  ) {}

  static async start(groups: number, flags: readonly string[] = []): Promise<CommitTarget> {
    const broker = await BenchBroker.start(flags);
    const client = broker.client;
    await client.request(CreateTopicsRequest, CreateTopicsResponse, 5, {
      topics: [{ name: TOPIC, numPartitions: PARTITIONS.length, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 5000,
      validateOnly: false,
    });
    for (let from = 0; from < groups; from += FILL_WINDOW) {
      const to = Math.min(groups, from + FILL_WINDOW);
      for (let g = from; g < to; g++) client.sendRaw(client.frame(OffsetCommitRequest, 8, commitRequest(`group-${g}`, 0n)));
      for (let g = from; g < to; g++) await client.nextFrame(120_000);
    }
    return new CommitTarget(broker, groups);
  }

  /** `count` commits, one group after another, each with an OffsetFetch of the same group after it; µs each. */
  async round(count: number): Promise<Latencies> {
    const latencies: Latencies = { commit: [], fetch: [] };
    const client = this.broker.client;
    for (let i = 0; i < count; i++) {
      const groupId = `group-${i % this.groups}`;
      const committed = await timed(latencies.commit, () =>
        client.request(OffsetCommitRequest, OffsetCommitResponse, 8, commitRequest(groupId, ++this.offset)),
      );
      if (committed.topics[0]!.partitions.some((p) => p.errorCode !== 0)) throw new Error(`commit refused: ${JSON.stringify(committed)}`);
      await timed(latencies.fetch, () => client.request(OffsetFetchRequest, OffsetFetchResponse, 7, fetchRequest(groupId)));
    }
    return latencies;
  }
}

export async function offsetCommitBench(smoke: boolean, commits = smoke ? 200 : 5_000): Promise<Row[]> {
  const many = smoke ? 100 : 5_000;
  const few = await CommitTarget.start(10);
  const lots = await CommitTarget.start(many);
  const flushed = await CommitTarget.start(10, ['--flush', 'always']);
  try {
    const [fewRounds, manyRounds, flushedRounds] = await alternating(smoke ? 1 : 3, [
      () => few.round(commits),
      () => lots.round(commits),
      () => flushed.round(commits),
    ]);
    const [fewRestarts, manyRestarts] = await alternating(smoke ? 1 : 3, [() => few.broker.restart(), () => lots.broker.restart()]);
    // Each percentile from the least disturbed round.
    const p = (rounds: readonly Latencies[], key: keyof Latencies, at: number): number => lowest(rounds.map((r) => percentile(r[key], at)));
    return [
      ...[50, 99].map((at) =>
        compared(`OffsetCommit p${at}, 10 groups (µs)`, p(fewRounds!, 'commit', at), p(fewRounds!, 'fetch', at), 'OffsetFetch of the same'),
      ),
      ...[50, 99].map((at) =>
        compared(`OffsetCommit p${at}, ${fmt(many)} groups (µs)`, p(manyRounds!, 'commit', at), p(fewRounds!, 'commit', at), '10 groups'),
      ),
      compared('OffsetCommit p50, 10 groups, --flush always (µs)', p(flushedRounds!, 'commit', 50), p(fewRounds!, 'commit', 50), '--flush none'),
      compared(`restart with ${fmt(many)} groups' offsets (ms)`, lowest(manyRestarts!), lowest(fewRestarts!), '10 groups'),
    ];
  } finally {
    await few.broker.stop();
    await lots.broker.stop();
    await flushed.broker.stop();
  }
}
