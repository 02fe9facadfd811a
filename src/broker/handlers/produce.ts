/**
 * Produce: validate each partition's batch, append it (the log's append asks the producer
 * decision), answer a refusal with its Kafka error, and answer once the data is written. A
 * duplicate is answered with the offset its first copy got, after that copy is written.
 */
import { UNCHECKED, type AppendContext } from '../../idempotence/producer-decision.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { ProduceRequest, ProduceResponse, type ProduceResponsePartitionProduceResponse } from '../../protocol/messages/produce.js';
import {
  assignPartitionLeaderEpoch,
  BATCH_HEADER_SIZE,
  Compression,
  isTransactional,
  producedCompression,
  readBatchHeader,
  CheckElsewhere,
  validateProducedBatch,
  type BatchHeader,
  type DecompressionRoom,
  type TimestampRules,
} from '../../protocol/record-batch.js';
import { isRefusal, refusal, type Refusal } from '../../protocol/refusal.js';
import type { Appended, PartitionLog } from '../../log/partition-log.js';
import type { TopicConfig } from '../../settings/topic-configs.js';
import { defineApi } from '../api-handler.js';
import { validateOffThread } from '../batch-checks-thread.js';
import type { BrokerContext } from '../broker-context.js';
import type { Partition } from '../partition.js';
import type { Lane } from '../../server/request-memory-pool.js';
import { internalTopicRefusal } from '../internal-topic-refusals.js';
import { storageFailure } from '../storage-error.js';

type PartitionResponse = ProduceResponsePartitionProduceResponse;

/** A produced batch's header once checked, or why it is refused. */
type Checked = BatchHeader | Refusal;

/** As Kafka (KIP-110): older Produce versions predate zstd, so their clients may not send it. */
const ZSTD_MIN_VERSION = 7;

/** Transactions v2 (KIP-890 part 2): from Produce v12 a transactional batch adds its partition to the transaction itself. */
const ADDS_PARTITION_VERSION = 12;

export const produce = defineApi({
  request: ProduceRequest,
  response: ProduceResponse,
  minVersion: 3,
  // v13 names topics by id (KIP-516), which dispatch resolves (topic-ids.ts).
  maxVersion: 13,
  handle(request, info, broker): ProduceResponse | undefined | Promise<ProduceResponse | undefined> {
    broker.metrics.produceRequest();
    const acksValid = request.acks === 0 || request.acks === 1 || request.acks === -1;
    const written: Promise<void>[] = [];
    // A request's records may take no more once decompressed than brook accepts in a request uncompressed.
    const order: RequestOrder = { room: { bytes: broker.config.maxRequestBytes }, opening: undefined, memory: broker.requestMemory.decompression };
    const responses = request.topicData.map((topic) => ({
      name: topic.name,
      partitionResponses: topic.partitionData.map((p) => {
        const response = partitionResponse(p.index, ErrorCode.NONE, -1, -1);
        if (!acksValid) response.errorCode = ErrorCode.INVALID_REQUIRED_ACKS;
        else written.push(...appendPartition(broker, info.apiVersion, request.transactionalId, topic.name, p.index, p.records, order, response));
        return response;
      }),
    }));
    const answer = (): ProduceResponse | undefined => {
      if (request.acks === 0) {
        // No answer to carry an error: as Kafka's `KafkaApis.handleProduceRequest` does, the connection closes, so the client notices.
        if (responses.some((t) => t.partitionResponses.some((p) => p.errorCode !== ErrorCode.NONE))) info.connection.end();
        return undefined;
      }
      return { responses, throttleTimeMs: 0 };
    };
    // Nearly every request names one partition: no Promise.all for it.
    if (written.length === 0) return answer();
    return (written.length === 1 ? written[0]! : Promise.all(written)).then(answer);
  },
});

function partitionResponse(index: number, errorCode: number, baseOffset: number, logStartOffset: number): PartitionResponse {
  return {
    index,
    errorCode,
    baseOffset: BigInt(baseOffset),
    logAppendTimeMs: -1n,
    logStartOffset: BigInt(logStartOffset),
    recordErrors: [],
    errorMessage: null,
  };
}

/**
 * Records that may decompress to more than this are checked on another thread (the framing of
 * snappy and LZ4 bounds them, and zstd's, by 128 KiB per compressed block; gzip's trailer claims a
 * size, and a liar is stopped here). Handing a batch to the thread and back holds the event loop
 * for 60-180 µs; decompressing and walking 16 KiB of records on it takes about as long, 64 KiB
 * 0.1-0.6 ms, 128 KiB 0.5-1.3 ms (gzip, LZ4, zstd, measured on 2 busy cores).
 */
const DECOMPRESS_NOW_BYTES = 64 << 10;

/**
 * What one request's batches share: room to decompress in, and the compressed batch still being
 * checked, which its next one waits for; and the broker's memory that decompressing on the checks
 * thread takes.
 */
interface RequestOrder {
  readonly room: DecompressionRoom;
  opening: Promise<unknown> | undefined;
  readonly memory: Lane;
}

const ignore = (): void => {};

/** Fills `response` for one partition; returns what must be written before it is sent. */
function appendPartition(
  broker: BrokerContext,
  version: number,
  transactionalId: string | null,
  topic: string,
  index: number,
  records: Buffer | null,
  order: RequestOrder,
  response: PartitionResponse,
): Promise<void>[] {
  const partition = broker.partitions.get(topic, index);
  if (partition === undefined) {
    response.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    return [];
  }
  const internal = internalTopicRefusal('produce', topic);
  if (internal !== undefined) return refuse(internal, response);
  const log = partition.log;
  response.logStartOffset = BigInt(log.logStartOffset);
  // As Kafka's `ReplicaManager.getPartitionOrException` checks that a partition's log directory is online before anything else: a failed
  // partition's producer state may hold batches its disk never got, so it judges nothing.
  if (log.failed) {
    response.errorCode = ErrorCode.KAFKA_STORAGE_ERROR;
    return [];
  }
  const codec = records === null ? undefined : producedCompression(records);
  if (version < ZSTD_MIN_VERSION && codec === Compression.Zstd) {
    response.errorCode = ErrorCode.UNSUPPORTED_COMPRESSION_TYPE;
    response.errorMessage = `zstd needs Produce version ${ZSTD_MIN_VERSION} or later, not ${version}`;
    return [];
  }
  // The log's size limits, asked before the batch is decompressed, as Kafka's `UnifiedLog.analyzeAndValidateRecords` checks them first.
  const tooLarge = records === null ? undefined : log.sizeRefusal(records.length);
  if (tooLarge !== undefined) return refuse(tooLarge, response);
  const { timestamps: rules, compacted } = produceRules(broker.storage.topicConfig(topic)!);
  const now = Date.now();
  const keysRequiredIn = compacted ? `${topic}-${index}` : undefined;
  // A compressed batch may be decompressed after this call, and the request's memory is lent for the call only.
  const compressed = codec !== undefined && codec !== Compression.None;
  const batch = compressed ? Buffer.from(records!) : records;
  let header: Checked | Promise<Checked>;
  if (batch === null) header = refusal(ErrorCode.CORRUPT_MESSAGE, 'records are null');
  else if (compressed) header = validateCompressed(batch, order, rules, now, keysRequiredIn);
  else header = validateProducedBatch(batch, order.room, rules, now, keysRequiredIn);
  if (version >= ADDS_PARTITION_VERSION && transactionalId !== null) header = addedToTxn(broker, transactionalId, topic, index, header);
  if (!(header instanceof Promise)) {
    if (isRefusal(header)) return refuse(header, response);
    if (!partition.turnsWaiting) return store(broker, partition, batch!, header, now, rules, response);
  }
  // Behind a batch still being checked, or checked on the thread: in a copy of its own.
  return waitTurn(broker, partition, compressed ? batch! : Buffer.from(batch!), header, { now, rules, response });
}

/**
 * Produce v12+ (transactions v2): a transactional batch to a partition not yet in its producer's
 * transaction adds it first, as Kafka's ReplicaManager asks the coordinator (AddPartitionsToTxnManager):
 * PRODUCER_FENCED is answered INVALID_PRODUCER_EPOCH there, CONCURRENT_TRANSACTIONS as it is. A
 * batch whose producer the coordinator does not know, or of another epoch, is left to the producer
 * decision to refuse.
 */
function addedToTxn(
  broker: BrokerContext,
  transactionalId: string,
  topic: string,
  partition: number,
  header: Checked | Promise<Checked>,
): Checked | Promise<Checked> {
  const add = (h: Checked): Checked | Promise<Checked> => {
    if (isRefusal(h) || !isTransactional(h.attributes) || h.producerId < 0n) return h;
    const view = broker.transactions.view(h.producerId, { topic, partition });
    if (view.partitionAdded || view.epoch !== h.producerEpoch) return h;
    return broker.transactions.addPartitions(transactionalId, h.producerId, h.producerEpoch, [{ topic, partition }]).then((code) => {
      if (code === ErrorCode.NONE) return h;
      return refusal(code === ErrorCode.PRODUCER_FENCED ? ErrorCode.INVALID_PRODUCER_EPOCH : code, null);
    });
  };
  return header instanceof Promise ? header.then(add) : add(header);
}

/**
 * validateProducedBatch() of a compressed batch: on the checks thread if its records may
 * decompress to more than the event loop takes on, and after the request's compressed batch
 * still being checked, if any, as they share the request's room.
 */
function validateCompressed(
  batch: Buffer,
  order: RequestOrder,
  rules: TimestampRules,
  now: number,
  keysRequiredIn: string | undefined,
): Checked | Promise<Checked> {
  const validate = (): Checked | Promise<Checked> => {
    const checked = validateProducedBatch(batch, order.room, rules, now, keysRequiredIn, DECOMPRESS_NOW_BYTES);
    return checked instanceof CheckElsewhere
      ? validateOffThread(batch, order.room, rules, now, keysRequiredIn, { lane: order.memory, bound: checked.bound })
      : checked;
  };
  const header = order.opening === undefined ? validate() : order.opening.then(validate);
  if (header instanceof Promise) order.opening = header.then(ignore, ignore);
  return header;
}

/** What a batch that waits for its turn was checked by, and where its answer goes. */
interface Waiting {
  readonly now: number;
  readonly rules: TimestampRules;
  readonly response: PartitionResponse;
}

/** Stores `batch` (memory of its own) once its header is known and the batches before it in its partition are judged and appended. */
function waitTurn(broker: BrokerContext, partition: Partition, batch: Buffer, header: Checked | Promise<Checked>, at: Waiting): Promise<void>[] {
  const { now, rules, response } = at;
  const stored = partition.turn(header, (valid) =>
    isRefusal(valid) ? refuse(valid, response) : store(broker, partition, batch, valid, now, rules, response, true),
  );
  return [
    Promise.resolve(stored)
      .then((written) => Promise.all(written))
      .then(ignore),
  ];
}

/** Answers a refused batch with its refusal, as it is; nothing to write. */
function refuse(refused: Refusal, response: PartitionResponse): Promise<void>[] {
  response.errorCode = refused.errorCode;
  response.errorMessage = refused.message;
  response.recordErrors = refused.recordErrors.map(({ batchIndex, message }) => ({ batchIndex, batchIndexErrorMessage: message }));
  return [];
}

/**
 * Appends a validated batch if the producer decision accepts it, answering a refusal with its
 * Kafka error; returns what must be written before the answer. A batch that `waited` for its turn
 * finds its partition as it is now: deleted, or failed, meanwhile.
 */
function store(
  broker: BrokerContext,
  partition: Partition,
  batch: Buffer,
  header: BatchHeader,
  now: number,
  rules: TimestampRules,
  response: PartitionResponse,
  waited = false,
): Promise<void>[] {
  const { topic, index, log } = partition;
  const gone = waited ? partition.gone : undefined;
  if (gone !== undefined) {
    response.errorCode = gone;
    return [];
  }
  broker.metrics.batchReceived(batch.length);
  // The leader stamps its epoch on what it stores, as Kafka's `UnifiedLog.append` does; consumers commit it back.
  assignPartitionLeaderEpoch(batch, 0, broker.cluster.epochOf(topic, index));
  let appended: Appended;
  try {
    appended = partition.append(batch, header, now, appendContext(broker, topic, index, header));
  } catch (err) {
    // The partition's log has failed (a write error; it takes nothing until a restart), or a bug.
    response.errorCode = storageFailure(broker.logger, err, { topic, partition: index }, 'append failed');
    response.errorMessage = (err as Error).message;
    return [];
  }
  // Too large (for a config altered while the batch waited, too), or the producer decision's refusal.
  if (appended.kind === 'refused') return refuse(appended, response);
  const { kind, baseOffset } = appended;
  response.baseOffset = BigInt(baseOffset);
  const written = durable(broker, partition, baseOffset + header.recordCount - 1, response);
  if (rules.type === 'LogAppendTime') {
    // As Kafka's `UnifiedLog.append` (`LogAppendInfo.logAppendTime`), the append time is answered; a duplicate's is its first copy's, read back from the log.
    if (kind === 'duplicate') return [written.then(() => appendTimeOf(log, baseOffset, response))];
    response.logAppendTimeMs = BigInt(now);
  }
  return [written];
}

/** What Produce needs of a topic's configs in force. */
interface ProduceRules {
  readonly timestamps: TimestampRules;
  readonly compacted: boolean;
}

/** Worked out once per topic config, not per batch: a topic's config in force is replaced whole when it changes. */
const produceRulesOf = new WeakMap<TopicConfig, ProduceRules>();

function produceRules(config: TopicConfig): ProduceRules {
  let rules = produceRulesOf.get(config);
  if (rules === undefined) {
    rules = {
      timestamps: { type: config.timestampType, beforeMaxMs: config.timestampBeforeMaxMs, afterMaxMs: config.timestampAfterMaxMs },
      compacted: config.cleanupPolicy.includes('compact'),
    };
    produceRulesOf.set(config, rules);
  }
  return rules;
}

async function appendTimeOf(log: PartitionLog, baseOffset: number, response: PartitionResponse): Promise<void> {
  if (response.errorCode !== ErrorCode.NONE) return;
  try {
    const stored = await log.read(baseOffset, 1);
    // Gone to retention or DeleteRecords meanwhile: no time to tell.
    if (stored.length >= BATCH_HEADER_SIZE) response.logAppendTimeMs = BigInt(readBatchHeader(stored).maxTimestamp);
  } catch {
    // The batch is stored; only its time cannot be told.
  }
}

/** What the broker knows of the batch's producer beyond the partition: the newest epoch InitProducerId handed out, and its transaction. */
function appendContext(broker: BrokerContext, topic: string, partition: number, header: BatchHeader): AppendContext {
  const id = header.producerId;
  if (id < 0n) return UNCHECKED;
  const txn = isTransactional(header.attributes) ? broker.transactions.view(id, { topic, partition }) : undefined;
  return { newestEpoch: broker.producerEpochs.current(id) ?? -1, txn };
}

function durable(broker: BrokerContext, partition: Partition, lastOffset: number, response: PartitionResponse): Promise<void> {
  return partition.written(lastOffset, (err: unknown) => {
    response.errorCode = storageFailure(broker.logger, err, { topic: partition.topic, partition: partition.index }, 'append failed');
    response.baseOffset = -1n;
  });
}
