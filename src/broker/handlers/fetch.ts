/**
 * Fetch: stored batches verbatim, from the one holding the fetch offset, within the byte limits;
 * a fetch short of min_bytes waits (up to max_wait_ms) and is answered as soon as data arrives.
 *
 * The limits are Kafka's: the answer's records stay within max_bytes and the broker's
 * fetch.max.bytes, each partition's within its partition_max_bytes, except that the first batch
 * found goes out whole, so that a large batch never stalls a consumer. A partition named more than
 * once is fetched once, as Kafka's `FetchRequest.fetchData` does (it reads the request into a map): in the place of its first
 * mention, with the offset and limit of its last. Batches go out whole or not at all: a later
 * partition whose next batch does not fit in what remains is answered without records. An answer
 * also keeps within the room its connection's other unsent answers leave, so that answers a client
 * does not read cannot pile up, and within what the broker's budget for work in flight has free
 * (it never waits there, behind requests): an answer the budget is short for holds fewer records,
 * or none and then waits, as for min_bytes, until memory is given back or data comes.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { bytesBeforeCodec, Compression } from '../../protocol/record-batch.js';
import { FetchRequest, FetchResponse, type FetchRequestFetchPartition, type FetchResponsePartitionData } from '../../protocol/messages/fetch.js';
import { AnswerMemory, AnswerMemoryShort } from '../../memory/answer-memory.js';
import type { SentHooks } from '../../server/connection.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';
import { leaderEpochError } from '../config.js';
import type { Partition } from '../partition.js';
import { readFailure } from '../storage-error.js';

type PartitionData = FetchResponsePartitionData;
const EMPTY: Buffer = Buffer.alloc(0);

interface Fetched {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: FetchRequestFetchPartition;
}

const READ_COMMITTED = 1;
/** As Kafka (KIP-110): clients of older Fetch versions predate zstd. */
const ZSTD_MIN_VERSION = 10;

export const fetch = defineApi({
  request: FetchRequest,
  response: FetchResponse,
  minVersion: 4,
  // v13+ name topics by id (KIP-516), which dispatch resolves (topic-ids.ts); v14-18 change nothing a consumer sends or reads.
  maxVersion: 18,
  async handle(request, info, broker): Promise<FetchResponse> {
    const deadline = Date.now() + request.maxWaitMs;
    const fetched = fetchedPartitions(request);
    const maxBytes = Math.min(request.maxBytes, broker.config.fetchMaxBytes);
    // Log bytes are read into pooled memory, given back once the response that sends them is
    // written, or at once when a later look at the log replaces them.
    const memory = new AnswerMemory(broker.fetchMemory, info.sent, broker.requestMemory.requests);
    const read: PartitionRead = { broker, memory, zstd: info.apiVersion >= ZSTD_MIN_VERSION, committed: request.isolationLevel === READ_COMMITTED };
    let result = await collect(fetched, maxBytes, read, info.sent);
    while (!result.answerNow && result.bytes < request.minBytes && Date.now() < deadline && broker.partitions.open) {
      const freed = result.short ? broker.requestMemory.requests.freed() : undefined;
      await broker.partitions.waitForWrite(result.partitions, deadline - Date.now(), freed);
      memory.giveBackSince(0);
      result = await collect(fetched, maxBytes, read, info.sent);
    }
    broker.metrics.fetched(result.bytes);
    return result.response;
  },
});

/**
 * The partitions a request names, by topic and index, each once: a partition named again
 * keeps its first place and takes the later mention's offset and limit (a Map keeps the order
 * keys were first set in, as Kafka's LinkedHashMap does).
 */
function fetchedPartitions(request: FetchRequest): Map<string, Fetched> {
  const fetched = new Map<string, Fetched>();
  for (const t of request.topics) {
    for (const p of t.partitions) fetched.set(`${t.topic}\u0000${p.partition}`, { topic: t.topic, topicId: t.topicId, partition: p });
  }
  return fetched;
}

interface Collected {
  readonly response: FetchResponse;
  readonly bytes: number;
  /** Something other than records to answer with: an error. */
  readonly answerNow: boolean;
  /** Records were left out because the budget for work in flight had not the memory free. */
  readonly short: boolean;
  /** The partitions read, whose next write a fetch short of min_bytes waits for. */
  readonly partitions: Partition[];
}

/** What reading the partitions of one Fetch takes. */
interface PartitionRead {
  readonly broker: BrokerContext;
  readonly memory: AnswerMemory;
  /** Whether the client reads zstd batches. */
  readonly zstd: boolean;
  /** read_committed: records up to the last stable offset, with the aborted transactions among them. */
  readonly committed: boolean;
}

async function collect(fetched: ReadonlyMap<string, Fetched>, maxBytes: number, read: PartitionRead, sent: SentHooks): Promise<Collected> {
  // The room is claimed before the reads, which take memory only later: requests the connection
  // hands on meanwhile find it taken.
  const room = read.memory.claim(Math.min(maxBytes, sent.answerRoom));
  try {
    return await readPartitions(fetched, room, read);
  } finally {
    read.memory.claim(0);
  }
}

async function readPartitions(fetched: ReadonlyMap<string, Fetched>, maxBytes: number, { broker, memory, zstd, committed }: PartitionRead): Promise<Collected> {
  let bytes = 0;
  let answerNow = false;
  let short = false;
  const read: Partition[] = [];
  const responses: FetchResponse['responses'] = [];
  for (const { topic, topicId, partition: p } of fetched.values()) {
    // Partitions of one topic named one after the other share its entry, as in Kafka's answer.
    let topicResponse = responses.at(-1);
    if (topicResponse?.topic !== topic) responses.push((topicResponse = { topic, topicId, partitions: [] }));
    const partitions = topicResponse.partitions;
    const partition = broker.partitions.get(topic, p.partition);
    if (partition === undefined) {
      answerNow = true;
      partitions.push(partitionData(p.partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1, EMPTY));
      continue;
    }
    const epochError = leaderEpochError(p.currentLeaderEpoch, broker.cluster.epochOf(topic, p.partition));
    if (epochError !== ErrorCode.NONE) {
      answerNow = true;
      partitions.push(partitionData(p.partition, epochError, -1, -1, EMPTY));
      continue;
    }
    read.push(partition);
    const log = partition.log;
    // A consumer waiting at the end of the log reads what comes next from the tail cache.
    log.noteRead();
    const offset = Number(p.fetchOffset);
    const hw = log.highWatermark;
    const lso = log.lastStableOffset;
    const upTo = committed ? lso : hw;
    if (offset < log.logStartOffset || offset > hw) {
      answerNow = true;
      partitions.push(partitionData(p.partition, ErrorCode.OFFSET_OUT_OF_RANGE, hw, log.logStartOffset, EMPTY, lso));
      continue;
    }
    let records: Buffer = EMPTY;
    const limit = Math.min(p.partitionMaxBytes, maxBytes - bytes);
    if (offset < upTo && !short && (bytes === 0 || limit > 0)) {
      const mark = memory.taken;
      try {
        // The first batch goes out whole even past the limits, so a large batch never stalls a
        // consumer; but not past what the budget for work in flight has free (AnswerMemoryShort).
        records = await log.read(offset, Math.max(1, limit), memory.take, upTo);
      } catch (err) {
        memory.giveBackSince(mark);
        if (err instanceof AnswerMemoryShort) {
          // Later partitions are read by a later answer, once memory is free.
          short = true;
          partitions.push(partitionData(p.partition, ErrorCode.NONE, hw, log.logStartOffset, EMPTY, lso));
          continue;
        }
        broker.metrics.fetchFailed();
        // Said once per run of failures (the error names the file, position and offset of damage):
        // consumers retry every few hundred milliseconds.
        const errorCode = readFailure(
          broker.logger,
          err,
          { topic, partition: p.partition, fetchOffset: offset },
          'reading the log failed; failures in a row after this one are not logged',
          partition.unreadable,
        );
        partition.unreadable = true;
        answerNow = true;
        partitions.push(partitionData(p.partition, errorCode, hw, log.logStartOffset, EMPTY, lso));
        continue;
      }
      // A read that works again ends the run of failures: the next one is logged.
      partition.unreadable = false;
      // Batches up to the first in zstd go to a client that cannot read it; that one is an error.
      const readable = zstd ? records.length : bytesBeforeCodec(records, Compression.Zstd);
      if (readable === 0 && records.length > 0) {
        memory.giveBackSince(mark);
        answerNow = true;
        partitions.push(partitionData(p.partition, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, hw, log.logStartOffset, EMPTY, lso));
        continue;
      }
      records = records.subarray(0, readable);
      if (bytes > 0 && records.length > limit) {
        memory.giveBackSince(mark);
        records = EMPTY;
      }
      bytes += records.length;
    }
    const data = partitionData(p.partition, ErrorCode.NONE, hw, log.logStartOffset, records, lso);
    // As Kafka's `LocalLog.read`: under read_committed, the aborted transactions whose records the answer may hold, for the client to drop.
    if (committed) {
      data.abortedTransactions = log.abortedTxns(offset, upTo).map((a) => ({ producerId: a.producerId, firstOffset: BigInt(a.firstOffset) }));
    }
    partitions.push(data);
  }
  const response: FetchResponse = { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses };
  return { response, bytes, answerNow, short, partitions: read };
}

function partitionData(
  partitionIndex: number,
  errorCode: number,
  highWatermark: number,
  logStartOffset: number,
  records: Buffer,
  lastStableOffset = -1,
): PartitionData {
  return {
    partitionIndex,
    errorCode,
    highWatermark: BigInt(highWatermark),
    lastStableOffset: BigInt(lastStableOffset),
    logStartOffset: BigInt(logStartOffset),
    abortedTransactions: null,
    preferredReadReplica: -1,
    records,
  };
}
