/**
 * startBroker's checks of its options, which plain JavaScript passes with no types to check them:
 * an unknown name, or a value of another type than the setting's, would otherwise be ignored, and
 * a value out of a setting's range would fail later, on some request.
 */
import { DEFAULT_CONFIG, OPTIONS, type BrokerConfig, type Setting } from '../settings/settings.js';

const KINDS: ReadonlyMap<string, Setting['kind']> = new Map(OPTIONS.map(([name, s]) => [name, s.kind]));
const NAMES = [...KINDS.keys()].sort();

/** What is wrong with `options`, in a sentence naming the option; undefined if nothing. */
export function optionProblem(options: unknown): string | undefined {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return `options must be an object, not ${JSON.stringify(options)}`;
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const kind = KINDS.get(name);
    if (kind === undefined) return `unknown option '${name}'; the options are ${NAMES.join(', ')}`;
    if (!kind.fits(value)) return `option '${name}' cannot be ${describeValue(value)}: ${kind.said}`;
  }
  return undefined;
}

/** Addresses meaning every address of the machine, to listen on. */
const WILDCARDS = ['0.0.0.0', '::', '0:0:0:0:0:0:0:0'];

/**
 * As Kafka's `KafkaConfig` checks advertised.listeners: a host meaning "every address" is where to listen, not an address to send clients
 * to, so it needs an advertised listener beside it.
 */
export function listenerProblem(options: { readonly host?: string; readonly advertisedListener?: unknown }): string | undefined {
  if (options.advertisedListener !== undefined || !WILDCARDS.includes(options.host ?? DEFAULT_CONFIG.host)) return undefined;
  return `host ${options.host} listens on every address but is not one clients can connect to: give the address they should use as the advertised listener (--advertised-listener HOST:PORT, advertisedListener), as Kafka requires`;
}

/** As Kafka's KafkaConfig: the memory for requests in flight must hold the largest request. */
export function memoryProblem(options: { readonly queuedMaxRequestBytes?: number; readonly maxRequestBytes?: number }): string | undefined {
  const queued = options.queuedMaxRequestBytes ?? DEFAULT_CONFIG.queuedMaxRequestBytes;
  const largest = options.maxRequestBytes ?? DEFAULT_CONFIG.maxRequestBytes;
  if (queued >= largest) return undefined;
  return `queued.max.request.bytes (${queued}) must be at least socket.request.max.bytes (${largest}), as in Kafka: the memory for requests in flight must hold the largest request`;
}

/**
 * As Kafka's `GroupCoordinatorConfig` requires: the consumer groups' session timeout and heartbeat
 * interval lie within their minimum and maximum, and the interval is shorter than the timeout.
 */
export function consumerGroupTimeProblem(c: BrokerConfig): string | undefined {
  const pairs = [
    ['session.timeout.ms', c.consumerGroupMinSessionTimeoutMs, c.consumerGroupSessionTimeoutMs, c.consumerGroupMaxSessionTimeoutMs],
    ['heartbeat.interval.ms', c.consumerGroupMinHeartbeatIntervalMs, c.consumerGroupHeartbeatIntervalMs, c.consumerGroupMaxHeartbeatIntervalMs],
  ] as const;
  for (const [name, min, value, max] of pairs) {
    if (min > value || value > max)
      return `group.consumer.${name} must lie between group.consumer.min.${name} and group.consumer.max.${name}: ${min} ≤ ${value} ≤ ${max} does not hold`;
  }
  if (c.consumerGroupHeartbeatIntervalMs >= c.consumerGroupSessionTimeoutMs)
    return 'group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms';
  return undefined;
}

/** The value as the message shows it: JSON, cut short (a certificate would fill the screen). */
function describeValue(value: unknown): string {
  const finite = (_: string, v: unknown): unknown => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
  const shown = typeof value === 'number' || typeof value === 'function' ? String(value) : (JSON.stringify(value, finite) ?? String(value));
  return shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
}
