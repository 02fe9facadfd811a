/**
 * A request installed faults act on: its connection closed on arrival, held until released,
 * errors answered for what the faults match (that part taken out of the request, so never
 * handled), its answer held back, or its answer dropped after it was handled. Each fault that
 * acts is counted and logged.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ResponseBytes } from '../server/connection.js';
import type { ApiHandler, HandlerResult, RequestInfo } from './api-handler.js';
import type { BrokerContext } from './broker-context.js';
import { callHandler } from './handler-call.js';
import type { InstalledFault, Outcome } from '../faults/matching.js';
import { addErrors, without, type Named, type NamedError } from '../faults/request-layouts.js';
import { refusal } from '../faults/refusals.js';
import { describeError, type FaultAction } from '../faults/rule.js';

/**
 * Handles `request` as `outcome` says. The handler is called before anything is awaited, so
 * requests are still handled in the order they arrived, but for a held one: it is handled once
 * released, as if it arrived then (its request was decoded from a copy of its frame).
 */
export function handleFaulted(
  outcome: Outcome,
  named: readonly Named[] | undefined,
  handler: ApiHandler,
  request: unknown,
  info: RequestInfo,
  broker: BrokerContext,
  encode: (response: unknown) => ResponseBytes,
): ResponseBytes | Promise<ResponseBytes> {
  const apiKey = handler.request.apiKey;
  const errors: NamedError[] = [...outcome.errors].map(([i, f]) => ({ ...named![i]!, errorCode: errorCodeOf(f) }));
  for (const f of outcome.fired) report(f, outcome, named, info, broker);
  if (outcome.closeConnection) {
    info.sent.cut();
    return undefined;
  }
  if (outcome.held !== undefined)
    return outcome.held.released.then(() => finish(callHandler(handler, request, info, broker), [], outcome, info, apiKey, encode));
  // Each held batch's turn is taken before the handler runs: the batch queues behind it, as behind a slow check.
  if (outcome.heldChecks !== undefined) {
    for (const i of outcome.heldChecks.entries) {
      const { topic, partition } = named![i]!;
      if (partition !== undefined) void broker.partitions.get(topic, partition)?.turn(outcome.heldChecks.released, ignore);
    }
  }
  let result: HandlerResult<unknown>;
  if (outcome.requestError !== undefined) result = refusal(apiKey, request, outcome.requestError);
  else {
    const rest = errors.length === 0 ? request : without(apiKey, request, new Set(outcome.errors.keys()));
    result = callHandler(handler, rest, info, broker);
  }
  return finish(result, errors, outcome, info, apiKey, encode);
}

async function finish(
  result: HandlerResult<unknown>,
  errors: readonly NamedError[],
  outcome: Outcome,
  info: RequestInfo,
  apiKey: number,
  encode: (response: unknown) => ResponseBytes,
): Promise<ResponseBytes> {
  const response = await withErrors(result, errors, apiKey, info);
  const bytes = response === undefined ? undefined : encode(response);
  // Unreferenced, so that a broker closed meanwhile does not keep its process alive.
  if (outcome.delayMs > 0) await sleep(outcome.delayMs, undefined, { ref: false });
  if (!outcome.dropResponse) return bytes;
  info.sent.cut();
  return undefined;
}

/** The handler's answer with an error entry added for each of `errors`, the entries taken out of its request. */
export async function withErrors(result: HandlerResult<unknown>, errors: readonly NamedError[], apiKey: number, info: RequestInfo): Promise<unknown> {
  const response = await result;
  if (errors.length > 0) {
    // A Produce with acks=0 has no answer to carry errors: as Kafka's `KafkaApis.handleProduceRequest` does, the connection closes.
    if (response === undefined) info.connection.end();
    else addErrors(apiKey, response, errors);
  }
  return response;
}

const ignore = (): void => {};

/** Only error faults answer entries with errors. */
function errorCodeOf(f: InstalledFault): number {
  return (f.rule.action as Extract<FaultAction, { kind: 'error' }>).errorCode;
}

function report(f: InstalledFault, outcome: Outcome, named: readonly Named[] | undefined, info: RequestInfo, broker: BrokerContext): void {
  const { api, action } = f.rule;
  broker.metrics.faultFired(api, action.kind);
  const fields = { connection: info.connection.id, remote: info.connection.remoteAddress, api, action: action.kind, fired: f.fired };
  const taken = [...outcome.errors].filter(([, by]) => by === f).map(([i]) => named![i]!);
  broker.logger.info(fields, `fault: ${done(f, taken)}`);
}

function done(f: InstalledFault, taken: readonly Named[]): string {
  const { api, action } = f.rule;
  switch (action.kind) {
    case 'closeConnection':
      return `closed the connection on a ${api} request, not handled`;
    case 'holdCheck':
      return `holding the checks of a ${api} request's batches until released`;
    case 'dropResponse':
      return `handled a ${api} request, dropped its answer and closed the connection`;
    case 'delayMs':
      return `held the answer to a ${api} request back ${action.ms} ms`;
    case 'hold':
      return `held a ${api} request until released`;
    case 'error': {
      const names = taken.map((n) => (n.partition === undefined ? n.topic : `${n.topic}-${n.partition}`));
      return `answered a ${api} request with ${describeError(action.errorCode)}${names.length === 0 ? '' : ` for ${names.join(', ')}`}`;
    }
  }
}
