/**
 * A handler called for one request, timed. An exception it throws is a bug, never a reason to
 * hang up: as Kafka's `KafkaApis.handle` hands any exception to `RequestHandlerHelper.handleError`,
 * the request is answered with UNKNOWN_SERVER_ERROR for everything it names. A Produce with acks=0
 * has no answer to carry it, so its connection closes, as Kafka's `ProduceRequest.getErrorResponse`
 * gives none. RequestRejected is the one exception a handler throws on purpose: it ends the connection.
 */
import { refusal } from '../faults/refusals.js';
import { ApiKey } from '../protocol/messages/apis.js';
import type { ApiHandler, HandlerResult, RequestInfo } from './api-handler.js';
import type { BrokerContext } from './broker-context.js';
import { RequestRejected } from './request-rejected.js';
import { unexpectedError } from './unexpected-error.js';

export function callHandler(handler: ApiHandler, request: unknown, info: RequestInfo, broker: BrokerContext): HandlerResult<unknown> {
  const apiKey = handler.request.apiKey;
  const answer = (err: unknown): unknown => {
    if (err instanceof RequestRejected) throw err;
    const fields = { connection: info.connection.id, remote: info.connection.remoteAddress, api: handler.request.name, version: info.apiVersion };
    const errorCode = unexpectedError(broker.logger, err, fields, `${handler.request.name} threw`);
    if (apiKey === ApiKey.Produce && (request as { acks: number }).acks === 0) throw new RequestRejected(`${handler.request.name} failed`);
    return refusal(apiKey, request, errorCode);
  };
  return broker.metrics.timeRequest(apiKey, () => {
    let result: HandlerResult<unknown>;
    try {
      result = handler.handle(request, info, broker);
    } catch (err) {
      return answer(err);
    }
    return result instanceof Promise ? result.then(undefined, answer) : result;
  });
}
