/**
 * Fetch: stored batches verbatim, from the one holding the fetch offset, within the byte limits;
 * a fetch short of min_bytes waits (up to max_wait_ms) and is answered as soon as data arrives.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { FetchRequest, FetchResponse, type FetchResponsePartitionData } from '../../protocol/messages/fetch.js';
import type { ReadMemory } from '../../log/batch-file.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';
import { PartitionWaiters } from '../partition-waiters.js';

type PartitionData = FetchResponsePartitionData;
const EMPTY: Buffer = Buffer.alloc(0);

export const fetch = defineApi({
  request: FetchRequest,
  response: FetchResponse,
  minVersion: 4,
  maxVersion: 12,
  async handle(request, info, broker): Promise<FetchResponse> {
    const deadline = Date.now() + request.maxWaitMs;
    // Log bytes are read into pooled memory, given back once the response that sends them is written.
    const memory = (size: number): Buffer => {
      const piece = broker.fetchMemory.take(size);
      info.sent.afterSent(() => broker.fetchMemory.give(piece));
      return piece;
    };
    let result = await collect(request, broker, memory);
    const keys = request.topics.flatMap((t) => t.partitions.map((p) => PartitionWaiters.key(t.topic, p.partition)));
    while (!result.answerNow && result.bytes < request.minBytes && Date.now() < deadline) {
      await broker.waiters.wait(keys, deadline - Date.now());
      result = await collect(request, broker, memory);
    }
    broker.metrics.fetched(result.bytes);
    return result.response;
  },
});

async function collect(request: FetchRequest, broker: BrokerContext, memory: ReadMemory): Promise<{ response: FetchResponse; bytes: number; answerNow: boolean }> {
  let budget = request.maxBytes;
  let bytes = 0;
  let answerNow = false;
  const responses: FetchResponse['responses'] = [];
  for (const t of request.topics) {
    const partitions: PartitionData[] = [];
    for (const p of t.partitions) {
      const log = broker.storage.partition(t.topic, p.partition);
      if (log === undefined) {
        answerNow = true;
        partitions.push(partitionData(p.partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1, EMPTY));
        continue;
      }
      const offset = Number(p.fetchOffset);
      const hw = log.highWatermark;
      if (offset < log.logStartOffset || offset > hw) {
        answerNow = true;
        partitions.push(partitionData(p.partition, ErrorCode.OFFSET_OUT_OF_RANGE, hw, log.logStartOffset, EMPTY));
        continue;
      }
      let records: Buffer = EMPTY;
      if (offset < hw && (budget > 0 || bytes === 0)) {
        // The first batch goes out whole even past the limits, so a large batch never stalls a consumer.
        const limit = bytes === 0 ? Math.max(1, Math.min(p.partitionMaxBytes, budget)) : Math.min(p.partitionMaxBytes, budget);
        try {
          records = await log.read(offset, limit, memory);
        } catch (err) {
          broker.logger.error({ topic: t.topic, partition: p.partition, err }, 'reading the log failed');
          answerNow = true;
          partitions.push(partitionData(p.partition, ErrorCode.KAFKA_STORAGE_ERROR, hw, log.logStartOffset, EMPTY));
          continue;
        }
        bytes += records.length;
        budget -= records.length;
      }
      partitions.push(partitionData(p.partition, ErrorCode.NONE, hw, log.logStartOffset, records));
    }
    responses.push({ topic: t.topic, topicId: t.topicId, partitions });
  }
  const response: FetchResponse = { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses };
  return { response, bytes, answerNow };
}

function partitionData(partitionIndex: number, errorCode: number, highWatermark: number, logStartOffset: number, records: Buffer): PartitionData {
  return {
    partitionIndex,
    errorCode,
    highWatermark: BigInt(highWatermark),
    lastStableOffset: BigInt(highWatermark),
    logStartOffset: BigInt(logStartOffset),
    abortedTransactions: null,
    preferredReadReplica: -1,
    records,
  };
}
