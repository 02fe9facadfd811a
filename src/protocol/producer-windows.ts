/**
 * brook's DescribeProducers (v0) response: Kafka's, plus what it has no field for, each
 * producer's window of remembered batches, as one tagged field of the response's top-level
 * tagged-field section, where Kafka clients skip tags they do not know:
 *
 *   tag 10000 => [ProducerWindow]                        (compact array)
 *   ProducerWindow => topic (compact string) partition (int32) producer_id (int64) [Batch] _tagged_fields
 *   Batch => first_sequence (int32) last_sequence (int32) base_offset (int64) _tagged_fields
 *
 * Batches are oldest first. The field is left out when no asked partition has a producer.
 */
import { readArray, writeArray, type MessageCodec } from './messages/codec.js';
import { DescribeProducersResponse } from './messages/describe-producers.js';
import { Reader } from './primitives/reader.js';
import { Writer } from './primitives/writer.js';

/** One remembered batch: the idempotence rules' window entry. */
export interface WindowBatch {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly baseOffset: number;
}

export const WINDOWS_TAG = 10000;

export interface ProducerWindow {
  readonly topic: string;
  readonly partition: number;
  readonly producerId: bigint;
  readonly batches: readonly WindowBatch[];
}

export interface BrookDescribeProducersResponse extends DescribeProducersResponse {
  windows: ProducerWindow[];
}

export const BrookDescribeProducersResponse: MessageCodec<BrookDescribeProducersResponse> = {
  ...DescribeProducersResponse,
  read(r, version) {
    const body = new TaggedSectionReader(r.buf, r.offset, r.end);
    const response = DescribeProducersResponse.read(body, version);
    const windows: ProducerWindow[] = [];
    // The body's last tagged-field section is the top-level one.
    new Reader(r.buf, body.lastTaggedSection, body.offset).readTaggedFields(windows, version, readWindows);
    r.skip(body.offset - r.offset);
    return { ...response, windows };
  },
  write(w, version, value) {
    const body = new Writer(256);
    DescribeProducersResponse.write(body, version, value);
    const bytes = body.finish();
    // All but the trailing empty top-level tagged-field section, which brook's replaces.
    w.writeBuffer(bytes.subarray(0, bytes.length - 1));
    if (value.windows.length === 0) {
      w.writeEmptyTaggedFields();
      return;
    }
    w.writeUnsignedVarint(1);
    w.writeUnsignedVarint(WINDOWS_TAG);
    const start = w.beginSized();
    writeArray(w, version, true, value.windows, writeWindow);
    w.endSized(start);
  },
};

/** Notes where the last tagged-field section it skipped began. */
class TaggedSectionReader extends Reader {
  lastTaggedSection = -1;

  override skipTaggedFields(): void {
    this.lastTaggedSection = this.offset;
    super.skipTaggedFields();
  }
}

function readWindows(r: Reader, tag: number, windows: ProducerWindow[], version: number): boolean {
  if (tag !== WINDOWS_TAG) return false;
  windows.push(...readArray(r, version, true, readWindow));
  return true;
}

function readWindow(r: Reader, version: number): ProducerWindow {
  const window = { topic: r.readCompactString(), partition: r.readInt32(), producerId: r.readInt64(), batches: readArray(r, version, true, readBatch) };
  r.skipTaggedFields();
  return window;
}

function writeWindow(w: Writer, version: number, v: ProducerWindow): void {
  w.writeCompactString(v.topic);
  w.writeInt32(v.partition);
  w.writeInt64(v.producerId);
  writeArray(w, version, true, v.batches, writeBatch);
  w.writeEmptyTaggedFields();
}

function readBatch(r: Reader): WindowBatch {
  const batch = { firstSeq: r.readInt32(), lastSeq: r.readInt32(), baseOffset: Number(r.readInt64()) };
  r.skipTaggedFields();
  return batch;
}

function writeBatch(w: Writer, _version: number, v: WindowBatch): void {
  w.writeInt32(v.firstSeq);
  w.writeInt32(v.lastSeq);
  w.writeInt64(BigInt(v.baseOffset));
  w.writeEmptyTaggedFields();
}
