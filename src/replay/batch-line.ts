/**
 * One line of `brook replay` input: `producer=P epoch=E partition=NAME seq=S count=N`
 * (fields in any order, separated by spaces or tabs) or the same as a flat JSON object.
 */
import { MAX_EPOCH } from '../idempotence/rules.js';
import { FlatJsonError, parseFlatJsonObject } from './flat-json.js';

export interface BatchLine {
  /** Decimal text of the producer id: kept exact up to 2^63 − 1. */
  readonly producer: string;
  readonly epoch: number;
  readonly partition: string;
  readonly firstSeq: number;
  readonly count: number;
}

export class BatchLineError extends Error {}

const INT_MAX = 2147483647;
const NUMERIC_RANGES = {
  producer: [0n, 9223372036854775807n],
  epoch: [0n, BigInt(MAX_EPOCH)],
  seq: [0n, BigInt(INT_MAX)],
  count: [1n, BigInt(INT_MAX)],
} as const;
type NumericField = keyof typeof NUMERIC_RANGES;
const FIELDS = ['producer', 'epoch', 'partition', 'seq', 'count'] as const;
type Field = (typeof FIELDS)[number];
const isField = (name: string): name is Field => (FIELDS as readonly string[]).includes(name);

/** Returns undefined for lines that get no reply: blank ones and `#` comments. */
export function parseBatchLine(line: string): BatchLine | undefined {
  const text = line.trim();
  if (text === '' || text.startsWith('#')) return undefined;
  const raw = text.startsWith('{') ? fieldsOfJson(text) : fieldsOfPairs(text);
  for (const name of FIELDS) if (!raw.has(name)) throw new BatchLineError(`missing field '${name}'`);
  const partition = raw.get('partition') as string;
  if (partition === '' || /\s/.test(partition)) throw new BatchLineError(`partition must be a non-empty name without spaces`);
  const num = (name: NumericField): bigint => wholeNumber(name, raw.get(name) as string);
  return {
    producer: num('producer').toString(),
    epoch: Number(num('epoch')),
    partition,
    firstSeq: Number(num('seq')),
    count: Number(num('count')),
  };
}

function fieldsOfPairs(text: string): Map<Field, string> {
  const fields = new Map<Field, string>();
  for (const pair of text.split(/[ \t]+/)) {
    const eq = pair.indexOf('=');
    if (eq < 0) throw new BatchLineError(`'${pair}' is not a field=value pair`);
    addField(fields, pair.slice(0, eq), pair.slice(eq + 1));
  }
  return fields;
}

function fieldsOfJson(text: string): Map<Field, string> {
  let parsed;
  try {
    parsed = parseFlatJsonObject(text);
  } catch (err) {
    if (err instanceof FlatJsonError) throw new BatchLineError(err.message);
    throw err;
  }
  const fields = new Map<Field, string>();
  for (const [name, value] of parsed) {
    const wantString = name === 'partition';
    if (isField(name) && (value.kind === 'string') !== wantString) {
      throw new BatchLineError(`field '${name}' must be a JSON ${wantString ? 'string' : 'number'}`);
    }
    addField(fields, name, value.kind === 'string' ? value.value : value.text);
  }
  return fields;
}

function addField(fields: Map<Field, string>, name: string, value: string): void {
  if (!isField(name)) throw new BatchLineError(`unknown field '${name}'`);
  if (fields.has(name)) throw new BatchLineError(`field '${name}' given twice`);
  fields.set(name, value);
}

function wholeNumber(name: NumericField, text: string): bigint {
  if (!/^-?[0-9]+$/.test(text)) throw new BatchLineError(`${name} '${text}' is not a whole number`);
  const value = BigInt(text);
  const [min, max] = NUMERIC_RANGES[name];
  if (value < min || value > max) throw new BatchLineError(`${name} ${text} is out of range ${min}..${max}`);
  return value;
}
