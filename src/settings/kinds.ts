/**
 * The kinds of value a setting takes: how startBroker checks an option of the kind, how
 * `brook serve` reads a flag of it, and Kafka's type of it.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { CLIENT_PORTS, parseHostPort } from '../server/host-port.js';
import type { TlsListener } from '../server/tcp-server.js';
import type { FaultRule } from '../faults/rule.js';

/** Kafka's type of a config (ConfigDef.Type), which a topic config's value is checked against (topic-configs.ts). */
export type KafkaType = 'int' | 'long' | 'double' | 'boolean' | 'string' | { readonly oneOf: readonly string[] } | { readonly listOf: readonly string[] };

export interface Kind<T> {
  /** Whether a value given to startBroker is one. */
  readonly fits: (value: unknown) => boolean;
  /** What a value must be, in the words a refusal ends with. */
  readonly said: string;
  /** The flag's argument in `brook serve --help`. */
  readonly arg: string;
  /** A flag's text to its value; throws a sentence (no full stop) saying what is wrong. Absent: a switch, true or false. */
  readonly parse?: (text: string) => T;
  /** The texts a flag may be, which commander lists when another is given. */
  readonly choices?: readonly string[];
  /** What a flag takes, where that is not what the option takes. */
  readonly flagSaid?: string;
  /** What the number counts, for the README to spell a default in larger units. */
  readonly unit?: 'bytes' | 'ms';
  /** The flag may be given again, each time for one more item of the array the option takes. */
  readonly repeatable?: true;
}

/**
 * When appended data is fsynced. 'none': never on the acknowledgement path (survives a process
 * crash, not a power cut); interval: every intervalMs, acknowledgements do not wait for it;
 * 'always': before the acknowledgement, one fsync covering every write since the last.
 */
export type FlushPolicy = 'none' | 'always' | { readonly intervalMs: number };

/** Node's timers wait at most this long; a longer delay fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
export const INT32_MAX = 2 ** 31 - 1;
/** The largest whole number a JavaScript number holds exactly: "no limit" where Kafka's is Long.MAX_VALUE. */
export const ANY = Number.MAX_SAFE_INTEGER;

const field = (v: unknown, name: string): unknown => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[name] : undefined);
const wholeIn = (min: number, max: number) => (v: unknown) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const isText = (v: unknown): boolean => typeof v === 'string' && v !== '';

const wholeSaid = (min: number, max: number): string => `a whole number from ${min} to ${max}`;

/** A flag's whole number from min to max. */
export function parseWhole(text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^-?[0-9]+$/.test(text) || n < min || n > max) throw new Error(`expected ${wholeSaid(min, max)}`);
  return n;
}

function whole(min: number, max: number, unit?: 'bytes' | 'ms'): Kind<number> {
  return {
    fits: wholeIn(min, max),
    said: wholeSaid(min, max),
    arg: unit === 'ms' ? '<ms>' : '<n>',
    parse: (text) => parseWhole(text, min, max),
    unit,
  };
}

/** A whole number from min to max, of Kafka's type int. */
export const int = (min: number, max: number, unit?: 'bytes' | 'ms'): Kind<number> => whole(min, max, unit);
/** A whole number from min to max, of Kafka's type long. */
export const long = (min: number, max: number, unit?: 'bytes' | 'ms'): Kind<number> => whole(min, max, unit);

/** A number from 0 to 1, of Kafka's type double. */
export const ratio: Kind<number> = {
  fits: (v) => typeof v === 'number' && v >= 0 && v <= 1,
  said: 'a number from 0 to 1',
  arg: '<ratio>',
  parse(text) {
    const n = Number(text);
    if (text.trim() === '' || !(n >= 0 && n <= 1)) throw new Error('expected a number from 0 to 1');
    return n;
  },
};

/** A number above 0, fractions too, of Kafka's type double; up to `max`. */
export const positiveDouble = (max: number, unit?: 'bytes' | 'ms'): Kind<number> => ({
  fits: (v) => typeof v === 'number' && v > 0 && v <= max,
  said: `a number above 0, up to ${max}`,
  arg: '<n>',
  parse(text) {
    const n = Number(text);
    if (text.trim() === '' || !(n > 0 && n <= max)) throw new Error(`expected a number above 0, up to ${max}`);
    return n;
  },
  unit,
});

export const port = (min: number): Kind<number> => ({ ...int(min, 65535), arg: '<port>' });

export const bool: Kind<boolean> = { fits: (v) => typeof v === 'boolean', said: 'true or false', arg: '' };

const listed = (items: readonly string[]): string => items.join(', ').replace(/, ([^,]*)$/, ' or $1');

/** One of `values`, spelled as Kafka spells them (`ConfigDef.ValidString`). */
export function oneOf<T extends string>(values: readonly T[], arg: string): Kind<T> {
  return {
    fits: (v) => values.includes(v as T),
    said: listed(values.map((v) => `'${v}'`)),
    arg,
    parse: (text) => text as T,
    choices: values,
    flagSaid: listed(values.map((v) => `\`${v}\``)),
  };
}

/** Any text but the empty one; `said` is what it names. */
export const text = (said: string, arg: string): Kind<string> => ({ fits: isText, said, arg, parse: (t) => t });

/** Parses `none`, `always` or `interval:<ms>`. */
export function parseFlushPolicy(text: string): FlushPolicy {
  if (text === 'none' || text === 'always') return text;
  const m = /^interval:([1-9][0-9]*)$/.exec(text);
  if (m && Number(m[1]) <= MAX_TIMER_MS) return { intervalMs: Number(m[1]) };
  throw new Error(`--flush must be none, always or interval:<ms> (ms from 1 to ${MAX_TIMER_MS}), not '${text}'`);
}

export const flushPolicy: Kind<FlushPolicy> = {
  fits: (v) => v === 'none' || v === 'always' || wholeIn(1, MAX_TIMER_MS)(field(v, 'intervalMs')),
  said: `'none', 'always' or { intervalMs } of 1 to ${MAX_TIMER_MS}`,
  arg: '<policy>',
  parse: parseFlushPolicy,
  flagSaid: `\`none\`, \`always\` or \`interval:<ms>\`, ms from 1 to ${MAX_TIMER_MS}`,
};

export const hostPort: Kind<{ readonly host: string; readonly port: number }> = {
  fits: (v) => isText(field(v, 'host')) && wholeIn(...CLIENT_PORTS)(field(v, 'port')),
  said: `{ host, port } with a port from ${CLIENT_PORTS[0]} to ${CLIENT_PORTS[1]}`,
  arg: '<host:port>',
  parse: parseHostPort,
  flagSaid: `\`HOST:PORT\`, a port from ${CLIENT_PORTS[0]} to ${CLIENT_PORTS[1]}`,
};

const CLIENT_AUTH = ['none', 'requested', 'required'] as const;
export const clientAuth = oneOf(CLIENT_AUTH, '<mode>');

export const tlsListener: Kind<TlsListener> = {
  fits: (v) => field(v, 'cert') !== undefined && field(v, 'key') !== undefined && clientAuth.fits(field(v, 'clientAuth')),
  said: `{ cert, key, ca?, clientAuth: ${CLIENT_AUTH.map((a) => `'${a}'`).join(' | ')} }`,
  arg: '',
};

/** A PEM file's contents, read when the flag is parsed so that a bad path is reported as such. */
export const pemFile: Kind<Buffer> = {
  fits: (v) => Buffer.isBuffer(v),
  said: 'PEM text',
  arg: '<file>',
  parse(text) {
    try {
      return readFileSync(text);
    } catch (err) {
      throw new Error(`cannot read ${text}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  },
  flagSaid: 'a PEM file',
};

/** Counts by client IP address, as Kafka's `max.connections.per.ip.overrides`; the flag takes `IP:COUNT,IP:COUNT`. */
export const addressCounts: Kind<Readonly<Record<string, number>>> = {
  fits: (v) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) && Object.entries(v).every(([address, n]) => isIP(address) !== 0 && wholeIn(0, INT32_MAX)(n)),
  said: `an object of client IP addresses to ${wholeSaid(0, INT32_MAX)}, such as { '127.0.0.1': 10 }`,
  arg: '<ip:count,...>',
  parse(text) {
    const counts: Record<string, number> = {};
    for (const item of text.split(',').map((p) => p.trim())) {
      const colon = item.lastIndexOf(':');
      const address = item.slice(0, Math.max(colon, 0));
      if (isIP(address) === 0) throw new Error(`'${item}' is not an IP address and a count such as 127.0.0.1:10`);
      counts[address] = parseWhole(item.slice(colon + 1), 0, INT32_MAX);
    }
    return counts;
  },
  flagSaid: '`IP:COUNT` pairs separated by `,`, counts from 0 to 2147483647',
};

const PRINCIPAL = /^[^:]+:.+$/;
const isPrincipal = (v: unknown): boolean => typeof v === 'string' && PRINCIPAL.test(v);

/** Kafka principals (`User:admin`); the flag takes them as `super.users` does, separated by `;`. */
export const principals: Kind<readonly string[]> = {
  fits: (v) => Array.isArray(v) && v.every(isPrincipal),
  said: "an array of principals such as 'User:admin'",
  arg: '<principals>',
  parse(text) {
    const list = text
      .split(';')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const bad = list.find((p) => !isPrincipal(p));
    if (bad !== undefined) throw new Error(`'${bad}' is not a principal such as User:admin`);
    return list;
  },
  flagSaid: 'principals such as `User:admin`, separated by `;`',
};

/** The server-side assignors of consumer groups (KIP-848), by the names Kafka gives them. */
export const ASSIGNORS = ['uniform', 'range'] as const;
export type AssignorName = (typeof ASSIGNORS)[number];

/** The names of the consumer group assignors, as `group.consumer.assignors` lists them, separated by `,`. */
export const assignorList: Kind<readonly AssignorName[]> = {
  fits: (v) => Array.isArray(v) && v.length > 0 && v.every((a) => (ASSIGNORS as readonly unknown[]).includes(a)),
  said: `a non-empty array of ${ASSIGNORS.map((a) => `'${a}'`).join(' and ')}`,
  arg: '<assignors>',
  parse(text) {
    const list = text.split(',').map((a) => a.trim());
    const bad = list.find((a) => !(ASSIGNORS as readonly string[]).includes(a));
    if (bad !== undefined) throw new Error(`'${bad}' is not an assignor: ${ASSIGNORS.join(', ')}`);
    return list as AssignorName[];
  },
  flagSaid: `${ASSIGNORS.map((a) => `\`${a}\``).join(', ')}, separated by \`,\``,
};

export const pinoLogger: Kind<Logger> = {
  fits: (v) => ['info', 'warn', 'error'].every((level) => typeof field(v, level) === 'function'),
  said: 'a pino logger',
  arg: '',
};

/**
 * Fault rules, each checked as broker.faults.add checks it. `--fault` gives one rule each time,
 * which `brook serve` reads (src/cli/fault-spec.ts): checking a rule takes the APIs the broker
 * serves, which the settings lie below.
 */
export const faultRules: Kind<readonly FaultRule[]> = {
  fits: Array.isArray,
  said: 'an array of fault rules',
  arg: '<spec>',
  flagSaid: 'a fault rule in one word, as in Faults on demand',
  repeatable: true,
};
