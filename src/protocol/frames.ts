/** A client's side of Kafka's framing: a request encoded into a frame, a response frame decoded. */
import type { MessageCodec } from './messages/codec.js';
import { requestHeaderVersion, responseHeaderVersion } from './messages/header.js';
import { RequestHeader } from './messages/request-header.js';
import { Reader } from './primitives/reader.js';
import { Writer } from './primitives/writer.js';

/** The whole request frame, its 4-byte size prefix included. */
export function requestFrame<Req>(codec: MessageCodec<Req>, version: number, request: Req, correlationId: number, clientId: string): Buffer {
  const w = new Writer();
  w.writeInt32(0);
  RequestHeader.write(w, requestHeaderVersion(codec.apiKey, version), { requestApiKey: codec.apiKey, requestApiVersion: version, correlationId, clientId });
  codec.write(w, version, request);
  const frame = w.finish();
  frame.writeInt32BE(frame.length - 4, 0);
  return frame;
}

/** A response frame (without its size prefix) to the request of `apiKey` at `version`. */
export function readResponseFrame<Res>(frame: Buffer, codec: MessageCodec<Res>, apiKey: number, version: number): { correlationId: number; body: Res } {
  const r = new Reader(frame);
  const correlationId = r.readInt32();
  if (responseHeaderVersion(apiKey, version) >= 1) r.skipTaggedFields();
  return { correlationId, body: codec.read(r, version) };
}
