/**
 * The largest batch a partition's log takes, whoever appends it: at most max.message.bytes (as
 * Kafka's UnifiedLog.analyzeAndValidateRecords checks) and at most segment.bytes, so that it fits
 * in a segment (as UnifiedLog.append checks). A refused batch appends nothing.
 */
import { ErrorCode } from '../protocol/error-codes.js';

/** A batch the log refuses, with Kafka's error code for it. */
export class AppendRefusal extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}

export interface BatchLimits {
  readonly maxMessageBytes: number;
  readonly segmentBytes: number;
}

/** Kafka's refusal of a batch of `bytes` for partition `topicPartition` (Kafka's "topic-0"), in Kafka's words; undefined if it fits. */
export function batchSizeRefusal(bytes: number, topicPartition: string, limits: BatchLimits): AppendRefusal | undefined {
  if (bytes > limits.maxMessageBytes) {
    return new AppendRefusal(
      ErrorCode.MESSAGE_TOO_LARGE,
      `The record batch size in the append to ${topicPartition} is ${bytes} bytes which exceeds the maximum configured value of ${limits.maxMessageBytes}.`,
    );
  }
  if (bytes > limits.segmentBytes) {
    return new AppendRefusal(
      ErrorCode.RECORD_LIST_TOO_LARGE,
      `Message batch size is ${bytes} bytes in append to partition ${topicPartition} which exceeds the maximum configured segment size of ${limits.segmentBytes}.`,
    );
  }
  return undefined;
}
