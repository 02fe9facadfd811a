/**
 * Fault rules as users write them (startBroker's `faults`, `broker.faults.add`, `brook serve
 * --fault`), and their check into the form requests are matched with: anything wrong is one
 * sentence naming it.
 */
import { closestWord } from './closest-word.js';
import { ErrorCode, errorCodeName } from '../protocol/error-codes.js';
import { API_SCHEMAS } from '../protocol/messages/apis.js';
import { namesOf } from './request-layouts.js';

/** Which requests a rule acts on, and how often. */
export interface FaultMatch {
  /** Kafka's name of the API (`'Produce'`) or its key (`0`). */
  readonly api: string | number;
  /** Only requests naming this topic. */
  readonly topic?: string;
  /** Only requests naming this partition of `topic`. */
  readonly partition?: number;
  /** Only requests arriving at this node's listener (a node id, from 1: `nodes` serves 1 to N). */
  readonly node?: number;
  /** Acts on this many requests, then removes itself; absent: until removed. */
  readonly count?: number;
  /** Acts on this share of the requests it matches (0 < p ≤ 1; absent: all of them). */
  readonly probability?: number;
  /** Seeds the draws `probability` makes, so that a run repeats; absent: a new seed each time. */
  readonly seed?: number;
}

/** What a rule does; each rule does one of these. */
export interface FaultActions {
  /** Kafka's error name (`'NOT_LEADER_OR_FOLLOWER'`) or code, answered for what the rule matches; that part of the request is not handled. */
  readonly error: string | number;
  /** The request is handled, its answer never sent, and the connection closed: a lost acknowledgement. */
  readonly dropResponse: true;
  /** The answer is held back this long; answers after it on the connection wait behind it. */
  readonly delayMs: number;
  /** The connection is closed when the request arrives; the request is not handled. */
  readonly closeConnection: true;
  /**
   * The request is held, not handled, until the fault's next `release()` (or its removal), then
   * handled as if it arrived then: a request delayed in the network. Answers after it on the
   * connection wait behind it.
   */
  readonly hold: true;
  /**
   * Produce only: each batch it matches takes its turn in its partition on arrival, but is judged
   * and appended only once the fault's handle releases it, as a batch whose check is slow; every
   * append behind it in the partition, a transaction's marker too, waits in arrival order.
   */
  readonly holdCheck: true;
}

type OneOf<T> = { [K in keyof T]: { readonly [P in K]: T[P] } & { readonly [P in Exclude<keyof T, K>]?: never } }[keyof T];

/** A fault: which requests it matches and the one action it takes on them. */
export type FaultRule = FaultMatch & OneOf<FaultActions>;

export type FaultActionName = keyof FaultActions;

export type FaultAction =
  | { readonly kind: 'error'; readonly errorCode: number }
  | { readonly kind: 'dropResponse' }
  | { readonly kind: 'delayMs'; readonly ms: number }
  | { readonly kind: 'closeConnection' }
  | { readonly kind: 'hold' }
  | { readonly kind: 'holdCheck' };

export interface CheckedRule {
  readonly apiKey: number;
  /** Kafka's name of the API. */
  readonly api: string;
  readonly topic: string | undefined;
  readonly partition: number | undefined;
  /** undefined: at every node. */
  readonly node: number | undefined;
  /** Infinity: until removed. */
  readonly count: number;
  readonly probability: number;
  readonly seed: number;
  readonly action: FaultAction;
}

/** The APIs a broker serves, by key. */
export type ServedApis = ReadonlyMap<number, unknown>;

/** Node's longest timer (2^31 - 1 ms); a longer one would fire at once. */
const LONGEST_DELAY_MS = 2 ** 31 - 1;

const ACTIONS: readonly FaultActionName[] = ['error', 'dropResponse', 'delayMs', 'closeConnection', 'hold', 'holdCheck'];
const FIELDS = ['api', 'topic', 'partition', 'node', 'count', 'probability', 'seed', ...ACTIONS];

/** A rule that cannot be installed; `problem` says why, as a phrase following "the rule". */
export class FaultRuleError extends TypeError {
  constructor(
    readonly rule: unknown,
    readonly problem: string,
  ) {
    super(`fault rule ${shown(rule)} ${problem}`);
    this.name = 'FaultRuleError';
  }
}

/**
 * The rule checked, or a FaultRuleError saying what is wrong with it; `nodes`: how many nodes the
 * broker serves (its ids 1 to `nodes`), when known.
 */
export function checkRule(rule: unknown, served: ServedApis, nodes?: number): CheckedRule {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) throw new FaultRuleError(rule, 'is not an object');
  const r = rule as Record<string, unknown>;
  const given = Object.keys(r).filter((k) => r[k] !== undefined);
  const unknown = given.find((k) => !FIELDS.includes(k));
  if (unknown !== undefined) {
    const meant = closestWord(unknown, FIELDS);
    throw new FaultRuleError(r, `has no field '${unknown}'${meant === undefined ? '' : ` (did you mean '${meant}'?)`}; its fields are ${FIELDS.join(', ')}`);
  }
  const { apiKey, api } = apiOf(r, served);
  const actions = ACTIONS.filter((a) => given.includes(a));
  if (actions.length === 0) throw new FaultRuleError(r, `needs an action: one of ${ACTIONS.join(', ')}`);
  if (actions.length > 1) throw new FaultRuleError(r, `has ${actions.length} actions (${actions.join(', ')}); a rule takes one, so give a rule for each`);
  const names = namesOf(apiKey);
  const topic = r.topic as string | undefined;
  if (topic !== undefined && (typeof topic !== 'string' || topic === '')) throw new FaultRuleError(r, `has topic ${shown(topic)}, which is no topic's name`);
  if (topic !== undefined && names === undefined) throw new FaultRuleError(r, `names topic '${topic}', but ${api} requests name no topic`);
  const partition = r.partition as number | undefined;
  if (partition !== undefined) {
    if (!isWhole(partition, 0, 2 ** 31 - 1)) throw new FaultRuleError(r, `has partition ${shown(partition)}; a partition is a whole number from 0`);
    if (names !== 'partition') throw new FaultRuleError(r, `names partition ${partition}, but ${api} requests name no partition`);
    if (topic === undefined) throw new FaultRuleError(r, `names partition ${partition} but no topic`);
  }
  const node = r.node as number | undefined;
  if (node !== undefined) {
    if (!isWhole(node, 1, 2 ** 31 - 1)) throw new FaultRuleError(r, `has node ${shown(node)}; a node is a whole number from 1`);
    if (nodes !== undefined && node > nodes)
      throw new FaultRuleError(r, `names node ${node}, but the broker serves ${nodes === 1 ? 'node 1 only' : `nodes 1 to ${nodes}`}`);
  }
  const count = r.count ?? Infinity;
  if (count !== Infinity && !isWhole(count, 1, Number.MAX_SAFE_INTEGER))
    throw new FaultRuleError(r, `has count ${shown(count)}; a count is a whole number from 1`);
  const probability = r.probability ?? 1;
  if (typeof probability !== 'number' || !(probability > 0 && probability <= 1))
    throw new FaultRuleError(r, `has probability ${shown(probability)}; a probability is above 0 and at most 1`);
  if (r.seed !== undefined && !isWhole(r.seed, 0, 2 ** 32 - 1))
    throw new FaultRuleError(r, `has seed ${shown(r.seed)}; a seed is a whole number from 0 to ${2 ** 32 - 1}`);
  if (r.seed !== undefined && r.probability === undefined) throw new FaultRuleError(r, 'has a seed but no probability for it to draw');
  const seed = (r.seed as number | undefined) ?? Math.floor(Math.random() * 2 ** 32);
  const action = actionOf(r, actions[0]!);
  if (action.kind === 'holdCheck' && api !== 'Produce') throw new FaultRuleError(r, `holds ${api} requests, but only Produce's batches are checked`);
  return { apiKey, api, topic, partition, node, count: count as number, probability, seed, action };
}

/** A rule in words, for the log: `Produce requests naming orders-0 at node 2: answer NOT_LEADER_OR_FOLLOWER (6), 2 times`. */
export function describeRule(r: CheckedRule): string {
  const naming = r.topic === undefined ? '' : ` naming ${r.topic}${r.partition === undefined ? '' : `-${r.partition}`}`;
  const where = `${naming}${r.node === undefined ? '' : ` at node ${r.node}`}`;
  const times = r.count === Infinity ? '' : `, ${r.count} time${r.count === 1 ? '' : 's'}`;
  const chance = r.probability < 1 ? `, with probability ${r.probability} (seed ${r.seed})` : '';
  return `${r.api} requests${where}: ${describeAction(r.action)}${times}${chance}`;
}

function describeAction(action: FaultAction): string {
  switch (action.kind) {
    case 'error':
      return `answer ${describeError(action.errorCode)}`;
    case 'dropResponse':
      return 'drop the answer and close the connection';
    case 'delayMs':
      return `hold the answer back ${action.ms} ms`;
    case 'closeConnection':
      return 'close the connection on arrival';
    case 'hold':
      return 'hold the request until released';
    case 'holdCheck':
      return "hold each batch's check until released";
  }
}

/** Kafka's name of an error code, with the code: `NOT_LEADER_OR_FOLLOWER (6)`. */
export function describeError(errorCode: number): string {
  const name = errorCodeName(errorCode);
  return name === undefined ? `error ${errorCode}` : `${name} (${errorCode})`;
}

function apiOf(r: Record<string, unknown>, served: ServedApis): { apiKey: number; api: string } {
  const given = r.api;
  if (given === undefined) throw new FaultRuleError(r, "needs an api: Kafka's name of one (such as 'Produce') or its key");
  const servedNames = [...served.keys()].map((key) => API_SCHEMAS[key]!.name);
  const schema = Object.values(API_SCHEMAS).find((s) => s!.name === given || s!.apiKey === given);
  if (schema === undefined) throw new FaultRuleError(r, `names unknown API ${shown(given)}; brook serves ${servedNames.join(', ')}`);
  if (!served.has(schema.apiKey))
    throw new FaultRuleError(r, `names ${schema.name} (${schema.apiKey}), which brook does not serve; it serves ${servedNames.join(', ')}`);
  return { apiKey: schema.apiKey, api: schema.name };
}

function actionOf(r: Record<string, unknown>, kind: FaultActionName): FaultAction {
  const value = r[kind];
  switch (kind) {
    case 'dropResponse':
    case 'closeConnection':
    case 'hold':
    case 'holdCheck':
      if (value !== true) throw new FaultRuleError(r, `has ${kind} ${shown(value)}; it is true or absent`);
      return { kind };
    case 'delayMs':
      if (!isWhole(value, 1, LONGEST_DELAY_MS))
        throw new FaultRuleError(r, `has delayMs ${shown(value)}; a delay is a whole number of ms from 1 to ${LONGEST_DELAY_MS}`);
      return { kind, ms: value as number };
    case 'error':
      return { kind, errorCode: errorCodeOf(r, value) };
  }
}

function errorCodeOf(r: Record<string, unknown>, value: unknown): number {
  if (typeof value === 'string') {
    const code = (ErrorCode as Record<string, number>)[value.toUpperCase()];
    if (code === undefined)
      throw new FaultRuleError(r, `names unknown error '${value}'; give Kafka's name of one (such as NOT_LEADER_OR_FOLLOWER) or its code`);
    if (code === ErrorCode.NONE) throw new FaultRuleError(r, 'names error NONE, which is no error');
    return code;
  }
  if (!isWhole(value, -1, 32767) || value === ErrorCode.NONE)
    throw new FaultRuleError(r, `has error ${shown(value)}; an error is Kafka's name of one or its code (-1 or 1 to 32767)`);
  return value as number;
}

/** A value as messages show it: text in single quotes, anything else as JSON. */
function shown(v: unknown): string {
  return typeof v === 'string' ? `'${v}'` : (JSON.stringify(v) ?? String(v));
}

function isWhole(v: unknown, min: number, max: number): boolean {
  return Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
}
