/** What the fault proxy reads out of, and answers to, the producer's requests. */
import { responseHeaderVersion } from '../../src/protocol/messages/header.js';
import { ProduceRequest, ProduceResponse } from '../../src/protocol/messages/produce.js';
import { ResponseHeader } from '../../src/protocol/messages/response-header.js';
import { Reader } from '../../src/protocol/primitives/reader.js';
import { Writer } from '../../src/protocol/primitives/writer.js';
import { BATCH_HEADER_SIZE, readBatchHeader } from '../../src/protocol/record-batch.js';
import type { KafkaRequest } from './fault-proxy.js';

export const API = { PRODUCE: 0 } as const;

export interface ProducedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly producerId: bigint;
  readonly epoch: number;
  readonly baseSequence: number;
  /** The records after the batch header: equal for a resend of the same messages. */
  readonly records: Buffer;
}

function body(request: KafkaRequest): Reader {
  return new Reader(request.frame, request.bodyOffset);
}

/** The first batch of each partition in a Produce request (clients send one). */
export function producedBatches(request: KafkaRequest): ProducedBatch[] {
  const produce = ProduceRequest.read(body(request), request.apiVersion);
  return produce.topicData.flatMap((t) =>
    t.partitionData.map((p) => {
      const h = readBatchHeader(p.records!);
      const records = p.records!.subarray(BATCH_HEADER_SIZE, h.size);
      return { topic: t.name, partition: p.index, producerId: h.producerId, epoch: h.producerEpoch, baseSequence: h.baseSequence, records };
    }),
  );
}

/** A Produce response frame failing every partition of `request` with `errorCode`. */
export function produceErrorResponse(request: KafkaRequest, errorCode: number): Buffer {
  const produce = ProduceRequest.read(body(request), request.apiVersion);
  const response: ProduceResponse = {
    throttleTimeMs: 0,
    responses: produce.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => ({
        index: p.index,
        errorCode,
        baseOffset: -1n,
        logAppendTimeMs: -1n,
        logStartOffset: -1n,
        recordErrors: [],
        errorMessage: null,
      })),
    })),
  };
  const w = new Writer();
  ResponseHeader.write(w, responseHeaderVersion(API.PRODUCE, request.apiVersion), { correlationId: request.correlationId });
  ProduceResponse.write(w, request.apiVersion, response);
  return w.finish();
}
