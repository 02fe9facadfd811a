/**
 * OffsetCommit latency with few groups and with many: one connection commits four partitions for
 * one group after another, each commit answered before the next is sent. With 10 groups the
 * reference is an OffsetFetch of the same partitions (the same round trip, writing nothing);
 * with many groups it is the 10-group broker, measured in the same rounds.
 */
import { rm } from 'node:fs/promises';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../src/protocol/messages/offset-fetch.js';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { WireClient } from '../test/helpers/wire-client.js';
import { alternating, lowest } from './measure.js';
import { compared, fmt, type Row } from './table.js';

const TOPIC = 'offsets';
const PARTITIONS = [0, 1, 2, 3];
/** Commits sent before their answers are read, while the groups are filled in. */
const FILL_WINDOW = 500;

interface Latencies {
  commit: number[];
  fetch: number[];
}

const commitRequest = (groupId: string, offset: bigint): OffsetCommitRequest => ({
  groupId,
  generationIdOrMemberEpoch: -1,
  memberId: '',
  groupInstanceId: null,
  retentionTimeMs: -1n,
  topics: [
    {
      name: TOPIC,
      partitions: PARTITIONS.map((partitionIndex) => ({
        partitionIndex,
        committedOffset: offset,
        committedLeaderEpoch: -1,
        commitTimestamp: -1n,
        committedMetadata: null,
      })),
    },
  ],
});

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
    readonly serve: ServeProcess,
    private readonly client: WireClient,
    readonly groups: number,
  ) {}

  static async start(groups: number): Promise<CommitTarget> {
    const serve = await startServe(['--log-level', 'warn']);
    const client = await WireClient.connect(serve.port);
    await client.request(CreateTopicsRequest, CreateTopicsResponse, 5, {
      topics: [{ name: TOPIC, numPartitions: PARTITIONS.length, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 5000,
      validateOnly: false,
    });
    const target = new CommitTarget(serve, client, groups);
    for (let from = 0; from < groups; from += FILL_WINDOW) {
      const to = Math.min(groups, from + FILL_WINDOW);
      for (let g = from; g < to; g++) client.sendRaw(client.frame(OffsetCommitRequest, 8, commitRequest(`group-${g}`, 0n)));
      for (let g = from; g < to; g++) await client.nextFrame(120_000);
    }
    return target;
  }

  /** `count` commits, one group after another, each with an OffsetFetch of the same group after it; µs each. */
  async round(count: number): Promise<Latencies> {
    const latencies: Latencies = { commit: [], fetch: [] };
    for (let i = 0; i < count; i++) {
      const groupId = `group-${i % this.groups}`;
      let start = performance.now();
      const committed = await this.client.request(OffsetCommitRequest, OffsetCommitResponse, 8, commitRequest(groupId, ++this.offset));
      latencies.commit.push((performance.now() - start) * 1000);
      if (committed.topics[0]!.partitions.some((p) => p.errorCode !== 0)) throw new Error(`commit refused: ${JSON.stringify(committed)}`);
      start = performance.now();
      await this.client.request(OffsetFetchRequest, OffsetFetchResponse, 7, fetchRequest(groupId));
      latencies.fetch.push((performance.now() - start) * 1000);
    }
    return latencies;
  }

  async stop(): Promise<void> {
    this.client.close();
    await this.serve.stop();
    await rm(this.serve.dataDir, { recursive: true, force: true });
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function offsetCommitBench(smoke: boolean, commits = smoke ? 200 : 5_000): Promise<Row[]> {
  const many = smoke ? 100 : 5_000;
  const few = await CommitTarget.start(10);
  const lots = await CommitTarget.start(many);
  try {
    const [fewRounds, manyRounds] = await alternating(smoke ? 1 : 3, [() => few.round(commits), () => lots.round(commits)]);
    // Each percentile from the least disturbed round.
    const p = (rounds: readonly Latencies[], key: keyof Latencies, at: number): number => lowest(rounds.map((r) => percentile(r[key], at)));
    return [
      ...[50, 99].map((at) =>
        compared(`OffsetCommit p${at}, 10 groups (µs)`, p(fewRounds!, 'commit', at), p(fewRounds!, 'fetch', at), 'OffsetFetch of the same'),
      ),
      ...[50, 99].map((at) =>
        compared(`OffsetCommit p${at}, ${fmt(many)} groups (µs)`, p(manyRounds!, 'commit', at), p(fewRounds!, 'commit', at), '10 groups'),
      ),
    ];
  } finally {
    await few.stop();
    await lots.stop();
  }
}
