/**
 * The Messages view's data: a partition's records from an offset, a time or the end, each transactional
 * one with its transaction's outcome, and the COMMIT and ABORT markers among them; producing one
 * through the Produce handler.
 */
import type { BrokerContext } from '../broker/broker-context.js';
import { produce } from '../broker/handlers/produce.js';
import type { PartitionLog } from '../log/partition-log.js';
import { BATCH_HEADER_SIZE, isTransactional, readBatchHeader } from '../protocol/record-batch.js';
import {
  encodeRecordBatch,
  readStoredMarkers,
  readStoredRecords,
  type RecordHeader,
  type StoredMarker,
  type StoredRecord,
} from '../protocol/stored-records.js';
import { ApiError, wholeNumber } from './api-input.js';
import { consoleRequestInfo } from './console-request.js';
import { refuseError } from './kafka-answer.js';
import { topicNamed } from './topics-api.js';

const MAX_RECORDS = 500;
const DEFAULT_RECORDS = 50;
/** What one read of the log takes; a batch larger than this still comes whole. */
const READ_BYTES = 1024 * 1024;
/** Bytes of a key, value or header shown in a list; the record alone shows them whole. */
const PREVIEW_BYTES = 2048;
/** What compressed batches may open into for one answer. */
const DECOMPRESS_BYTES = 64 * 1024 * 1024;

function partitionLog(broker: BrokerContext, topic: string, partitionText: string): { log: PartitionLog; partition: number } {
  const info = topicNamed(broker, topic);
  const partition = wholeNumber(partitionText, 'partition', 0, info.partitions - 1);
  const log = broker.storage.partition(topic, partition);
  if (log === undefined) throw new ApiError(404, `no partition ${partition} of ${topic}`);
  return { log, partition };
}

export async function browseMessages(broker: BrokerContext, topic: string, partitionText: string, query: URLSearchParams): Promise<unknown> {
  const { log } = partitionLog(broker, topic, partitionText);
  const limit = wholeNumber(query.get('limit'), 'limit', 1, MAX_RECORDS, DEFAULT_RECORDS);
  const from = await startOffset(log, query, limit);
  const rows = await readRows(log, from, limit);
  const next = rows.length === 0 ? from : rows[rows.length - 1]!.offset + 1;
  return {
    logStartOffset: log.logStartOffset,
    highWatermark: log.highWatermark,
    lastStableOffset: log.lastStableOffset,
    from,
    next,
    records: rows.map((r) => ('marker' in r ? shownMarker(r) : shown(log, r, PREVIEW_BYTES))),
  };
}

/** One record whole. */
export async function oneMessage(broker: BrokerContext, topic: string, partitionText: string, offsetText: string): Promise<unknown> {
  const { log } = partitionLog(broker, topic, partitionText);
  const offset = wholeNumber(offsetText, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const [row] = await readRows(log, offset, 1);
  if (row?.offset !== offset || 'marker' in row) throw new ApiError(404, `no record at offset ${offset}`);
  return shown(log, row, Infinity);
}

async function startOffset(log: PartitionLog, query: URLSearchParams, limit: number): Promise<number> {
  switch (query.get('from') ?? 'offset') {
    case 'end':
      return Math.max(log.logStartOffset, log.highWatermark - limit);
    case 'time': {
      const found = await log.offsetForTimestamp(wholeNumber(query.get('time'), 'time', 0, Number.MAX_SAFE_INTEGER));
      return found?.offset ?? log.highWatermark;
    }
    case 'offset':
      return Math.max(log.logStartOffset, wholeNumber(query.get('offset'), 'offset', 0, Number.MAX_SAFE_INTEGER, 0));
    default:
      throw new ApiError(400, 'from must be offset, time or end');
  }
}

/** The records and transaction markers from `from` on, at most `limit`, in offset order. */
async function readRows(log: PartitionLog, from: number, limit: number): Promise<(StoredRecord | StoredMarker)[]> {
  const rows: (StoredRecord | StoredMarker)[] = [];
  for (let offset = from; rows.length < limit && offset < log.highWatermark;) {
    const batches = await log.read(offset, READ_BYTES);
    if (batches.length === 0) break;
    const room = limit - rows.length;
    const found = [...readStoredRecords(batches, offset, room, DECOMPRESS_BYTES), ...readStoredMarkers(batches, offset)];
    // A stretch holding nothing past `offset` (compacted gaps) is stepped over.
    const last = lastOffsetIn(batches);
    rows.push(...found.sort((a, b) => a.offset - b.offset).slice(0, room));
    offset = Math.max(last + 1, offset + 1);
  }
  return rows;
}

function lastOffsetIn(batches: Buffer): number {
  let last = -1;
  for (let pos = 0; pos + BATCH_HEADER_SIZE <= batches.length;) {
    const header = readBatchHeader(batches, pos);
    last = header.baseOffset + header.lastOffsetDelta;
    pos += header.size;
  }
  return last;
}

interface ShownBytes {
  /** Base64 of the bytes, or of their first `limit`. */
  readonly base64: string;
  readonly size: number;
  readonly truncated: boolean;
}

function bytes(b: Buffer | null, limit: number): ShownBytes | null {
  if (b === null) return null;
  return { base64: b.subarray(0, Math.min(b.length, limit)).toString('base64'), size: b.length, truncated: b.length > limit };
}

function shown(log: PartitionLog, r: StoredRecord, limit: number): unknown {
  return {
    offset: r.offset,
    timestamp: r.timestamp,
    key: bytes(r.key, limit),
    value: bytes(r.value, limit),
    headers: r.headers.map((h) => ({ key: h.key, value: bytes(h.value, limit) })),
    producerId: String(r.batch.producerId),
    producerEpoch: r.batch.producerEpoch,
    sequence: r.batch.baseSequence < 0 ? -1 : r.batch.baseSequence + (r.offset - r.batch.baseOffset),
    batchBaseOffset: r.batch.baseOffset,
    transaction: isTransactional(r.batch.attributes) ? log.transactionOutcome(r.batch.producerId, r.offset) : null,
  };
}

function shownMarker(m: StoredMarker): unknown {
  return {
    offset: m.offset,
    timestamp: m.timestamp,
    marker: m.marker.toUpperCase(),
    producerId: String(m.batch.producerId),
    producerEpoch: m.batch.producerEpoch,
  };
}

export async function produceMessage(broker: BrokerContext, topic: string, partitionText: string, body: unknown, remoteAddress: string): Promise<unknown> {
  const { partition } = partitionLog(broker, topic, partitionText);
  const fields = body as { key?: unknown; value?: unknown; headers?: unknown } | null;
  const text = (v: unknown, name: string): Buffer | null => {
    if (v === null || v === undefined) return null;
    if (typeof v !== 'string') throw new ApiError(400, `${name} must be a string or null`);
    return Buffer.from(v, 'utf8');
  };
  const headersIn = fields?.headers ?? [];
  if (!Array.isArray(headersIn)) throw new ApiError(400, 'headers must be an array of { key, value }');
  const headers: RecordHeader[] = headersIn.map((h: { key?: unknown; value?: unknown }, i) => {
    if (typeof h?.key !== 'string') throw new ApiError(400, `header ${i} needs a string key`);
    return { key: h.key, value: text(h.value, `header ${i}'s value`) };
  });
  const batch = encodeRecordBatch([{ key: text(fields?.key, 'key'), value: text(fields?.value, 'value'), headers }], Date.now());
  const answer = await produce.handle(
    { transactionalId: null, acks: -1, timeoutMs: 30_000, topicData: [{ name: topic, partitionData: [{ index: partition, records: batch }] }] },
    consoleRequestInfo(produce.maxVersion, remoteAddress),
    broker,
  );
  const result = answer!.responses[0]!.partitionResponses[0]!;
  refuseError(result.errorCode, result.errorMessage);
  return { offset: Number(result.baseOffset) };
}
