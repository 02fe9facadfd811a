/**
 * DescribeProducers (v0): the idempotence state of each producer of the asked partitions, with
 * each producer's window of remembered batches in brook's tagged field (protocol/producer-windows.ts).
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import {
  DescribeProducersRequest,
  type DescribeProducersResponsePartitionResponse,
  type DescribeProducersResponseProducerState,
} from '../../protocol/messages/describe-producers.js';
import { BrookDescribeProducersResponse, type ProducerWindow } from '../../protocol/producer-windows.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';

export const describeProducers = defineApi({
  request: DescribeProducersRequest,
  response: BrookDescribeProducersResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(request, _info, broker): BrookDescribeProducersResponse {
    const windows: ProducerWindow[] = [];
    const topics = request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((index) => describePartition(broker, t.name, index, windows)),
    }));
    return { throttleTimeMs: 0, topics, windows };
  },
});

/** One partition's producers; their windows are added to `windows`. */
function describePartition(broker: BrokerContext, topic: string, index: number, windows: ProducerWindow[]): DescribeProducersResponsePartitionResponse {
  const log = broker.storage.partition(topic, index);
  if (log === undefined) {
    return { partitionIndex: index, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null, activeProducers: [] };
  }
  const activeProducers: DescribeProducersResponseProducerState[] = [];
  for (const [producerId, { state, lastTimestamp }] of log.producers()) {
    activeProducers.push({
      producerId,
      producerEpoch: state.epoch,
      lastSequence: state.window.at(-1)?.lastSeq ?? -1,
      lastTimestamp: BigInt(lastTimestamp),
      coordinatorEpoch: -1,
      currentTxnStartOffset: BigInt(log.openTxnStart(producerId) ?? -1),
    });
    windows.push({ topic, partition: index, producerId, batches: state.window });
  }
  return { partitionIndex: index, errorCode: ErrorCode.NONE, errorMessage: null, activeProducers };
}
