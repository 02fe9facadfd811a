/** A transactional producer and a read_committed reader over the raw wire client, for tests that check each answer. */
import assert from 'node:assert/strict';
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '../../src/protocol/messages/add-offsets-to-txn.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../../src/protocol/messages/add-partitions-to-txn.js';
import { EndTxnRequest, EndTxnResponse } from '../../src/protocol/messages/end-txn.js';
import { FetchRequest, FetchResponse } from '../../src/protocol/messages/fetch.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../../src/protocol/messages/offset-fetch.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../../src/protocol/messages/init-producer-id.js';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../../src/protocol/messages/txn-offset-commit.js';
import { isControl, markerOf, readBatchHeader } from '../../src/protocol/record-batch.js';
import { valuesBatch } from './batch.js';
import { fetchOf } from './wire-fetch.js';
import type { WireClient } from './wire-client.js';
import { produceBatch } from './wire-produce.js';

const CONCURRENT_TRANSACTIONS = 51;

export class WireTxnProducer {
  producerId = -1n;
  epoch = -1;
  private readonly sequences = new Map<string, number>();

  constructor(
    private client: WireClient,
    readonly transactionalId: string,
    private readonly timeoutMs = 60_000,
  ) {}

  /** InitProducerId's answer, asked again while the coordinator answers CONCURRENT_TRANSACTIONS. */
  async init(): Promise<number> {
    for (;;) {
      const errorCode = await this.initOnce();
      if (errorCode !== CONCURRENT_TRANSACTIONS) return errorCode;
    }
  }

  /** One InitProducerId; the id and epoch are taken if it succeeds. */
  async initOnce(): Promise<number> {
    const r = await this.client.request(InitProducerIdRequest, InitProducerIdResponse, 4, {
      transactionalId: this.transactionalId,
      transactionTimeoutMs: this.timeoutMs,
      producerId: -1n,
      producerEpoch: -1,
    });
    if (r.errorCode === 0) {
      // A v5 answer always carries both.
      this.producerId = r.producerId ?? this.producerId;
      this.epoch = r.producerEpoch ?? this.epoch;
      this.sequences.clear();
    }
    return r.errorCode;
  }

  async add(topic: string, partitions: readonly number[], version = 3): Promise<number[]> {
    const r = await this.client.request(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, version, {
      transactions: [],
      v3AndBelowTransactionalId: this.transactionalId,
      v3AndBelowProducerId: this.producerId,
      v3AndBelowProducerEpoch: this.epoch,
      v3AndBelowTopics: [{ name: topic, partitions: [...partitions] }],
    });
    return r.resultsByTopicV3AndBelow.flatMap((t) => t.resultsByPartition.map((p) => p.partitionErrorCode));
  }

  async addOffsets(groupId: string): Promise<number> {
    const r = await this.client.request(AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, 3, {
      transactionalId: this.transactionalId,
      producerId: this.producerId,
      producerEpoch: this.epoch,
      groupId,
    });
    return r.errorCode;
  }

  async commitOffsets(groupId: string, topic: string, offsets: Record<number, number>, version = 3): Promise<number[]> {
    const r = await this.client.request(TxnOffsetCommitRequest, TxnOffsetCommitResponse, version, {
      transactionalId: this.transactionalId,
      groupId,
      producerId: this.producerId,
      producerEpoch: this.epoch,
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [
        {
          name: topic,
          partitions: Object.entries(offsets).map(([p, o]) => ({
            partitionIndex: Number(p),
            committedOffset: BigInt(o),
            committedLeaderEpoch: -1,
            committedMetadata: '',
          })),
        },
      ],
    });
    return r.topics.flatMap((t) => t.partitions.map((p) => p.errorCode));
  }

  /** Sends `count` records to the partition in one transactional batch, numbered on from the last; from Produce v12 the request names the transactional id. */
  async send(topic: string, partition: number, count: number, prefix = 'v', version = 9): Promise<{ errorCode: number; baseOffset: number }> {
    const key = `${topic}-${partition}`;
    const baseSequence = this.sequences.get(key) ?? 0;
    const batch = valuesBatch(count, { producerId: this.producerId, producerEpoch: this.epoch, baseSequence, transactional: true }, prefix);
    const result = await produceBatch(this.client, topic, partition, batch, version, version >= 12 ? this.transactionalId : null);
    if (result.errorCode === 0) this.sequences.set(key, baseSequence + count);
    return result;
  }

  /** Sends the last `count` records to the partition again, as a producer retrying its last batch does. */
  async resend(topic: string, partition: number, count: number, prefix = 'v'): Promise<{ errorCode: number; baseOffset: number }> {
    const baseSequence = this.sequences.get(`${topic}-${partition}`)! - count;
    const batch = valuesBatch(count, { producerId: this.producerId, producerEpoch: this.epoch, baseSequence, transactional: true }, prefix);
    return produceBatch(this.client, topic, partition, batch);
  }

  /** Carries on over a new connection, as a producer does once its broker is back. */
  reconnect(client: WireClient): void {
    this.client = client;
  }

  async end(commit: boolean, version = 3): Promise<number> {
    return (await this.endAnswer(commit, version)).errorCode;
  }

  /** EndTxn's whole answer; from v5 (transactions v2) the producer goes on with the id and epoch it names, its sequences anew. */
  async endAnswer(commit: boolean, version: number): Promise<EndTxnResponse> {
    const r = await this.client.request(EndTxnRequest, EndTxnResponse, version, {
      transactionalId: this.transactionalId,
      producerId: this.producerId,
      producerEpoch: this.epoch,
      committed: commit,
    });
    if (version >= 5 && r.errorCode === 0) {
      // A v5 answer always carries both.
      this.producerId = r.producerId ?? this.producerId;
      this.epoch = r.producerEpoch ?? this.epoch;
      this.sequences.clear();
    }
    return r;
  }
}

/** The group's committed offset of the partition, -1 if none, by OffsetFetch. */
export async function committedOffset(client: WireClient, groupId: string, topic: string, partition: number): Promise<number> {
  const r = await client.request(OffsetFetchRequest, OffsetFetchResponse, 7, {
    groupId,
    topics: [{ name: topic, partitionIndexes: [partition] }],
    groups: [],
    requireStable: false,
  });
  return Number(r.topics[0]!.partitions[0]!.committedOffset);
}

export interface Read {
  /** Records a consumer of this isolation level hands on: the values of data batches, aborted ones dropped. */
  readonly values: string[];
  readonly markers: ('commit' | 'abort' | undefined)[];
  readonly highWatermark: number;
  readonly lastStableOffset: number;
}

/** One Fetch of the partition from `offset`, read as a Kafka consumer reads it under the isolation level. */
export async function readPartition(client: WireClient, topic: string, partition: number, committed: boolean, offset = 0): Promise<Read> {
  const request: FetchRequest = { ...fetchOf(topic, [partition], { offset }), isolationLevel: committed ? 1 : 0 };
  const response = await client.request(FetchRequest, FetchResponse, 12, request);
  const p = response.responses[0]!.partitions[0]!;
  assert.equal(p.errorCode, 0, `fetching ${topic}-${partition}`);
  // As Kafka's consumer: a producer's batches are dropped from an aborted transaction's first offset to its ABORT marker.
  const aborted = [...(p.abortedTransactions ?? [])].sort((a, b) => Number(a.firstOffset - b.firstOffset));
  const dropping = new Set<bigint>();
  const values: string[] = [];
  const markers: Read['markers'] = [];
  const records = p.records ?? Buffer.alloc(0);
  for (let pos = 0; pos < records.length;) {
    const header = readBatchHeader(records, pos);
    while (aborted.length > 0 && aborted[0]!.firstOffset <= BigInt(header.baseOffset)) dropping.add(aborted.shift()!.producerId);
    if (isControl(header.attributes)) {
      const marker = markerOf(records, pos, header);
      markers.push(marker);
      if (marker === 'abort') dropping.delete(header.producerId);
    } else if (!dropping.has(header.producerId)) {
      values.push(...valuesOf(records.subarray(pos, pos + header.size), header.recordCount));
    }
    pos += header.size;
  }
  return { values, markers, highWatermark: Number(p.highWatermark), lastStableOffset: Number(p.lastStableOffset) };
}

/** The values of an uncompressed batch's records, whose keys are null (as valuesBatch makes them). */
function valuesOf(batch: Buffer, count: number): string[] {
  const values: string[] = [];
  let pos = 61;
  const varint = (): number => {
    let z = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = batch[pos++]!;
      z += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    }
  };
  for (let i = 0; i < count; i++) {
    const length = varint();
    const end = pos + length;
    pos++; // attributes
    varint(); // timestamp delta
    varint(); // offset delta
    const keyLength = varint();
    if (keyLength > 0) pos += keyLength;
    const valueLength = varint();
    values.push(batch.toString('utf8', pos, pos + valueLength));
    pos = end;
  }
  return values;
}
