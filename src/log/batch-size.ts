/**
 * The largest batch a partition's log takes, whoever appends it: at most max.message.bytes (as
 * Kafka's UnifiedLog.analyzeAndValidateRecords checks) and at most segment.bytes, so that it fits
 * in a segment (as UnifiedLog.append checks). A refused batch appends nothing.
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { refusal, type Refusal } from '../protocol/refusal.js';

export interface BatchLimits {
  readonly maxMessageBytes: number;
  readonly segmentBytes: number;
}

/** Kafka's refusal of a batch of `bytes` for partition `topicPartition` (Kafka's "topic-0"), in Kafka's words; undefined if it fits. */
export function batchSizeRefusal(bytes: number, topicPartition: string, limits: BatchLimits): Refusal | undefined {
  if (bytes > limits.maxMessageBytes) {
    return refusal(
      ErrorCode.MESSAGE_TOO_LARGE,
      `The record batch size in the append to ${topicPartition} is ${bytes} bytes which exceeds the maximum configured value of ${limits.maxMessageBytes}.`,
    );
  }
  if (bytes > limits.segmentBytes) {
    return refusal(
      ErrorCode.RECORD_LIST_TOO_LARGE,
      `Message batch size is ${bytes} bytes in append to partition ${topicPartition} which exceeds the maximum configured segment size of ${limits.segmentBytes}.`,
    );
  }
  return undefined;
}
