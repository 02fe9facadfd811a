/**
 * startBroker's checks of its options, which plain JavaScript passes with no types to check them:
 * an unknown name, or a value of another type than the setting's, would otherwise be ignored, and
 * a value out of a setting's range would fail later, on some request.
 */
import { DEFAULT_CONFIG, MAX_TIMER_MS, SETTING_RANGES } from './config.js';
import { CLIENT_PORTS } from '../server/host-port.js';
import { TIMESTAMP_TYPES, type TimestampType } from '../protocol/record-batch.js';

interface Rule {
  readonly fits: (value: unknown) => boolean;
  /** What a value must be, where its type alone does not say it. */
  readonly said?: string;
}

const field = (v: unknown, name: string): unknown => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[name] : undefined);
const wholeIn = ([min, max]: readonly [number, number]) => (v: unknown) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const whole = (range: readonly [number, number]): Rule => ({ fits: wholeIn(range), said: `a whole number from ${range[0]} to ${range[1]}` });
const isText = (v: unknown): boolean => typeof v === 'string' && v !== '';
const text = (said: string): Rule => ({ fits: isText, said });

/** The options whose values are not any value of their default's type, or have no default. */
const RULES: Readonly<Record<string, Rule>> = {
  ...Object.fromEntries(Object.entries(SETTING_RANGES).map(([name, range]) => [name, whole(range)])),
  metricsPort: whole(SETTING_RANGES.port),
  dataDir: text('a directory path'),
  host: text('a host name or address'),
  logger: { fits: (v) => ['info', 'warn', 'error'].every((level) => typeof field(v, level) === 'function'), said: 'a pino logger' },
  flush: { fits: (v) => v === 'none' || v === 'always' || wholeIn([1, MAX_TIMER_MS])(field(v, 'intervalMs')), said: `'none', 'always' or { intervalMs } of 1 to ${MAX_TIMER_MS}` },
  advertisedListener: { fits: (v) => isText(field(v, 'host')) && wholeIn(CLIENT_PORTS)(field(v, 'port')), said: `{ host, port } with a port from ${CLIENT_PORTS[0]} to ${CLIENT_PORTS[1]}` },
  tls: {
    fits: (v) => field(v, 'cert') !== undefined && field(v, 'key') !== undefined && ['none', 'requested', 'required'].includes(field(v, 'clientAuth') as string),
    said: "{ cert, key, ca?, clientAuth: 'none' | 'requested' | 'required' }",
  },
  saslUsersFile: { fits: (v) => typeof v === 'string' },
  // Each rule is checked as broker.faults.add checks it, saying what is wrong with it.
  faults: { fits: Array.isArray, said: 'an array of fault rules' },
  messageTimestampType: { fits: (v) => TIMESTAMP_TYPES.includes(v as TimestampType), said: TIMESTAMP_TYPES.map((t) => `'${t}'`).join(' or ') },
};

const NAMES = [...new Set([...Object.keys(DEFAULT_CONFIG), ...Object.keys(RULES)])].sort();

/** What is wrong with `options`, in a sentence naming the option; undefined if nothing. */
export function optionProblem(options: unknown): string | undefined {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return `options must be an object, not ${JSON.stringify(options)}`;
  const defaults: Record<string, unknown> = { ...DEFAULT_CONFIG };
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (!NAMES.includes(name)) return `unknown option '${name}'; the options are ${NAMES.join(', ')}`;
    const rule = RULES[name] ?? { fits: (v: unknown) => typeof v === typeof defaults[name] };
    if (!rule.fits(value)) return `option '${name}' cannot be ${describeValue(value)}${rule.said === undefined ? '' : `: ${rule.said}`}`;
  }
  return undefined;
}

/** Addresses meaning every address of the machine, to listen on. */
const WILDCARDS = ['0.0.0.0', '::', '0:0:0:0:0:0:0:0'];

/**
 * As Kafka: a host meaning "every address" is where to listen, not an address to send clients
 * to, so it needs an advertised listener beside it.
 */
export function listenerProblem(options: { readonly host?: string; readonly advertisedListener?: unknown }): string | undefined {
  if (options.advertisedListener !== undefined || !WILDCARDS.includes(options.host ?? DEFAULT_CONFIG.host)) return undefined;
  return `host ${options.host} listens on every address but is not one clients can connect to: give the address they should use as the advertised listener (--advertised-listener HOST:PORT, advertisedListener), as Kafka requires`;
}

/** The value as the message shows it: JSON, cut short (a certificate would fill the screen). */
function describeValue(value: unknown): string {
  const finite = (_: string, v: unknown): unknown => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
  const shown = typeof value === 'number' || typeof value === 'function' ? String(value) : (JSON.stringify(value, finite) ?? String(value));
  return shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
}
