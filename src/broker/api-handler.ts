/** What one Kafka API contributes to the broker: its codecs, the versions served, its handler. */
import type { MessageCodec } from '../protocol/messages/codec.js';
import type { ConnectionContext, SentHooks } from '../server/connection.js';
import type { BrokerContext } from './broker-context.js';

export interface RequestInfo {
  readonly apiVersion: number;
  readonly clientId: string | null;
  readonly connection: ConnectionContext;
  /** For memory the response refers to: given back once the response is sent. */
  readonly sent: SentHooks;
}

/** undefined: the request gets no response (Produce with acks=0). */
export type HandlerResult<Res> = Res | undefined | Promise<Res | undefined>;

export interface ApiHandler<Req = any, Res = any> {
  readonly request: MessageCodec<Req>;
  readonly response: MessageCodec<Res>;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** The lowest version ApiVersions advertises, where a release advertises versions it refuses (Kafka 4's Produce). */
  readonly advertisedMinVersion?: number;
  /** Answered as Kafka answers with the API's feature off, a feature brook does not have (docs/departures.md). */
  readonly featureOff?: true;
  /** Answered ILLEGAL_SASL_STATE, as on a listener that does not use SASL. */
  readonly withoutSasl?: true;
  handle(request: Req, info: RequestInfo, broker: BrokerContext): HandlerResult<Res>;
}

export function defineApi<Req, Res>(handler: ApiHandler<Req, Res>): ApiHandler<Req, Res> {
  return handler;
}
