/**
 * Turns a request frame into a response frame: header, version check, decode, topics named by id
 * given their names, installed faults, handler, encode.
 * A request the broker cannot parse or does not serve closes its connection (as Kafka's `SocketServer` `Processor` does),
 * except an unknown ApiVersions version, which is answered so the client can pick another. One
 * it serves is answered, even when its handler throws (`handler-call.ts`).
 */
import { ProtocolError } from '../protocol/primitives/errors.js';
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';
import { readRequestHeader, responseHeaderVersion } from '../protocol/messages/header.js';
import type { ConnectionContext, FrameHandler, ResponseBytes, SentHooks } from '../server/connection.js';
import type { ApiHandler, RequestInfo } from './api-handler.js';
import type { BrokerContext } from './broker-context.js';
import { ApiKey } from '../protocol/messages/apis.js';
import { apiName, apiVersionName } from '../protocol/messages/api-name.js';
import { unsupportedApiVersionsResponse } from './handlers/api-versions.js';
import { RequestRejected } from './request-rejected.js';
import { handleFaulted } from './faulted-request.js';
import { callHandler } from './handler-call.js';
import { decide } from '../faults/matching.js';
import { addErrors, named } from '../faults/request-layouts.js';
import { withErrors } from './faulted-request.js';
import { leaderHints, nodeView } from './node-view.js';
import { namedByTopicId } from './topic-ids.js';

/**
 * A frame is lent for the call only (its memory is reused for the next large request), and
 * decoded requests hold slices of it: every request but Produce, whose handler copies what it
 * keeps into the log before returning, is decoded from a copy. They are small.
 */
export function createDispatcher(table: ReadonlyMap<number, ApiHandler>, broker: BrokerContext): FrameHandler {
  return (lent: Buffer, connection: ConnectionContext, sent: SentHooks): ResponseBytes | Promise<ResponseBytes> => {
    if (broker.sasl?.expectsBareToken(connection)) return broker.sasl.bareToken(connection, Buffer.from(lent));
    let frame = lent;
    let header;
    try {
      header = readRequestHeader(frame);
    } catch (err) {
      if (err instanceof ProtocolError) throw new RequestRejected(`malformed request header: ${err.message}`);
      throw err;
    }
    // A request a fault holds outlives the call: while faults are installed, Produce too is decoded from a copy.
    if (header.apiKey !== ApiKey.Produce || broker.faults.installed.length !== 0) frame = Buffer.from(lent);
    const handler = table.get(header.apiKey);
    if (handler === undefined) throw new RequestRejected(`${apiName(header.apiKey)} is not served`);
    const { apiKey, apiVersion, correlationId } = header;
    if (broker.sasl !== undefined && !broker.sasl.allows(connection, apiKey)) {
      throw new RequestRejected(`${handler.request.name} before SASL authentication`);
    }
    if (apiVersion < handler.minVersion || apiVersion > handler.maxVersion) {
      if (apiKey === ApiKey.ApiVersions) return encode(handler, 0, correlationId, 0, unsupportedApiVersionsResponse(handler));
      throw new RequestRejected(`${apiVersionName(apiKey, apiVersion)} is not supported (v${handler.minVersion}..v${handler.maxVersion})`);
    }
    let request: unknown;
    try {
      const reader = new Reader(frame, header.bodyOffset);
      request = handler.request.read(reader, apiVersion);
    } catch (err) {
      if (err instanceof ProtocolError) throw new RequestRejected(`malformed ${apiVersionName(apiKey, apiVersion)}: ${err.message}`);
      throw err;
    }
    const info: RequestInfo = { apiVersion, clientId: header.clientId, connection, sent };
    const headerVersion = responseHeaderVersion(apiKey, apiVersion);
    const byId = namedByTopicId(apiKey, apiVersion, request, (id) => broker.storage.topicById(id));
    if (byId !== undefined) request = byId.request;
    const respond = (response: unknown): Buffer | Buffer[] => {
      leaderHints(broker, apiKey, apiVersion, response);
      return encode(handler, apiVersion, correlationId, headerVersion, byId === undefined ? response : byId.withIds(response));
    };
    // A node of a simulated cluster answers first for what it does not lead or coordinate.
    const view = broker.cluster.simulated ? nodeView(broker, apiKey, apiVersion, request) : undefined;
    if (view !== undefined && 'answer' in view) return respond(view.answer);
    // Answered beside the handler's answer: unknown topic ids, and what this node does not lead.
    const misdirected = byId === undefined ? (view?.errors ?? []) : [...byId.errors, ...(view?.errors ?? [])];
    if (view !== undefined) request = view.request;
    if (broker.faults.installed.length !== 0) {
      const names = named(apiKey, request);
      const outcome = decide(broker.faults.installed, apiKey, names, broker.nodeId);
      if (outcome !== undefined) {
        return handleFaulted(outcome, names, handler, request, info, broker, (response) => {
          if (misdirected.length > 0) addErrors(apiKey, response, misdirected);
          return respond(response);
        });
      }
    }
    const result = callHandler(handler, request, info, broker);
    if (misdirected.length > 0)
      return withErrors(result, misdirected, apiKey, info).then((response) => (response === undefined ? undefined : respond(response)));
    if (result instanceof Promise) {
      return result.then((response) => (response === undefined ? undefined : respond(response)));
    }
    return result === undefined ? undefined : respond(result);
  };
}

/**
 * Byte fields at least this long (a Fetch response's records) go out by reference beside the
 * encoded bytes, not copied into them.
 */
const GATHER_BYTES = 4096;

/** The whole response frame, size prefix included, as one buffer or pieces for one vectored write. */
function encode(handler: ApiHandler, version: number, correlationId: number, headerVersion: number, response: unknown): Buffer | Buffer[] {
  const w = new Writer(256, GATHER_BYTES);
  w.writeInt32(0);
  w.writeInt32(correlationId);
  if (headerVersion >= 1) w.writeEmptyTaggedFields();
  handler.response.write(w, version, response);
  w.writeInt32At(0, w.length - 4);
  return w.finishPieces();
}
