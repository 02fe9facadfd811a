/**
 * Where each API's requests name topics (and partitions), for a fault rule's topic and partition
 * to match, and where its answers carry an error for each: a fault's error is answered for what
 * it matches by taking that out of the request before the handler sees it, then adding an error
 * entry for it to the handler's answer. APIs whose requests name no topic take an error as the
 * request's own, where every version brook serves has one.
 */
import { API_SCHEMAS, ApiKey } from '../protocol/messages/apis.js';
import type { StructSchema } from '../protocol/messages/codec.js';
import { defaultStruct } from '../protocol/message-defaults.js';

/** A topic a request names, with a partition where the request names partitions. */
export interface Named {
  readonly topic: string;
  readonly partition: number | undefined;
}

/** One named entry answered with an error. */
export interface NamedError extends Named {
  readonly errorCode: number;
}

interface Layout {
  /** The request's array of topics, the name field of each, and its array of partitions and their index field (null: the array holds the indexes). */
  readonly request: readonly [topics: string, name: string, partitions?: string, index?: string | null];
  /** Likewise in the answer. */
  readonly response: readonly [topics: string, name: string, partitions?: string, index?: string];
  /** Fields of an error entry other than the schema's defaults, as Kafka's `getErrorResponse` of each request answers them. */
  readonly errorFields?: Readonly<Record<string, unknown>>;
  /** Request fields set when part of it is taken out: a Fetch with an error is answered at once, as Kafka's `FetchRequest.getErrorResponse` answers it. */
  readonly whenFaulted?: Readonly<Record<string, unknown>>;
}

const BY_PARTITION = ['topics', 'name', 'partitions', 'partitionIndex'] as const;

const LAYOUTS: Readonly<Partial<Record<number, Layout>>> = {
  [ApiKey.Produce]: {
    request: ['topicData', 'name', 'partitionData', 'index'],
    response: ['responses', 'name', 'partitionResponses', 'index'],
    errorFields: { baseOffset: -1n },
  },
  [ApiKey.Fetch]: {
    request: ['topics', 'topic', 'partitions', 'partition'],
    response: ['responses', 'topic', 'partitions', 'partitionIndex'],
    // As Kafka's `FetchRequest.getErrorResponse`: no records, empty rather than null, which librdkafka cannot read.
    errorFields: { highWatermark: -1n, records: Buffer.alloc(0) },
    whenFaulted: { maxWaitMs: 0 },
  },
  [ApiKey.ListOffsets]: { request: BY_PARTITION, response: BY_PARTITION },
  [ApiKey.OffsetCommit]: { request: BY_PARTITION, response: BY_PARTITION },
  [ApiKey.OffsetForLeaderEpoch]: {
    request: ['topics', 'topic', 'partitions', 'partition'],
    response: ['topics', 'topic', 'partitions', 'partition'],
    errorFields: { leaderEpoch: -1, endOffset: -1n },
  },
  [ApiKey.DeleteRecords]: { request: BY_PARTITION, response: BY_PARTITION, errorFields: { lowWatermark: -1n } },
  [ApiKey.DescribeProducers]: { request: ['topics', 'name', 'partitionIndexes', null], response: BY_PARTITION },
  [ApiKey.Metadata]: { request: ['topics', 'name'], response: ['topics', 'name'] },
  [ApiKey.CreateTopics]: { request: ['topics', 'name'], response: ['topics', 'name'] },
  [ApiKey.CreatePartitions]: { request: ['topics', 'name'], response: ['results', 'name'] },
};

type Obj = Record<string, unknown>;

/** The array of topics and the name field of each, in a request of API `apiKey` and in its answer; undefined for an API whose requests name none. */
export function topicFields(
  apiKey: number,
): { request: readonly [topics: string, name: string]; response: readonly [topics: string, name: string] } | undefined {
  const layout = LAYOUTS[apiKey];
  return layout === undefined ? undefined : { request: [layout.request[0], layout.request[1]], response: [layout.response[0], layout.response[1]] };
}

/** What a request of API `apiKey` names: 'partition', 'topic', or undefined for neither. */
export function namesOf(apiKey: number): 'partition' | 'topic' | undefined {
  const layout = LAYOUTS[apiKey];
  return layout === undefined ? undefined : layout.request[2] === undefined ? 'topic' : 'partition';
}

/** Every topic (and partition) `request` names, in order; undefined for an API whose requests name none. */
export function named(apiKey: number, request: unknown): Named[] | undefined {
  const layout = LAYOUTS[apiKey];
  if (layout === undefined) return undefined;
  const [topics, name, partitions, index] = layout.request;
  const out: Named[] = [];
  for (const t of ((request as Obj)[topics] as Obj[] | null) ?? []) {
    const topic = t[name] as string | null;
    // Named by topic id only (Metadata v10+), which rules do not match.
    if (topic === null) continue;
    if (partitions === undefined) out.push({ topic, partition: undefined });
    else for (const p of t[partitions] as unknown[]) out.push({ topic, partition: index === null ? (p as number) : ((p as Obj)[index!] as number) });
  }
  return out;
}

/** `request` without the entries of `named(request)` at the indexes in `faulted`. */
export function without(apiKey: number, request: unknown, faulted: ReadonlySet<number>): unknown {
  const layout = LAYOUTS[apiKey]!;
  const [topics, name, partitions] = layout.request;
  let i = 0;
  // The same walk as named(): entries without a name are not counted.
  const kept = (): boolean => !faulted.has(i++);
  const list = ((request as Obj)[topics] as Obj[] | null) ?? [];
  const rest =
    partitions === undefined
      ? list.filter((t) => t[name] === null || kept())
      : list.map((t) => (t[name] === null ? t : { ...t, [partitions]: (t[partitions] as unknown[]).filter(kept) }));
  return { ...(request as Obj), [topics]: rest, ...layout.whenFaulted };
}

/** Adds an error entry for each of `errors` to `response`, the handler's answer to the request without them. */
export function addErrors(apiKey: number, response: unknown, errors: readonly NamedError[]): void {
  const layout = LAYOUTS[apiKey]!;
  const [topics, name, partitions, index] = layout.response;
  const topicSchema = fieldStruct(API_SCHEMAS[apiKey]!.response.schema, topics);
  let list = (response as Obj)[topics] as Obj[];
  for (const e of errors) {
    if (partitions === undefined) {
      // In place of the topic's own entry, where the handler answered it anyway (Metadata v0 with
      // every topic taken out asks for all of them).
      list = list.filter((t) => t[name] !== e.topic);
      list.push({ ...defaultStruct(topicSchema), [name]: e.topic, errorCode: e.errorCode, ...layout.errorFields });
      continue;
    }
    let entry = list.find((t) => t[name] === e.topic);
    if (entry === undefined) list.push((entry = { ...defaultStruct(topicSchema), [name]: e.topic, [partitions]: [] }));
    const partition = { ...defaultStruct(fieldStruct(topicSchema, partitions)), [index!]: e.partition, errorCode: e.errorCode, ...layout.errorFields };
    (entry[partitions] as Obj[]).push(partition);
  }
  (response as Obj)[topics] = list;
}

/** Calls `visit` with each partition's entry in `response`, an answer of API `apiKey` whose requests name partitions, its topic's name and its index. */
export function eachAnswered(apiKey: number, response: unknown, visit: (topic: string, partition: number, entry: Record<string, unknown>) => void): void {
  const [topics, name, partitions, index] = LAYOUTS[apiKey]!.response;
  for (const t of (response as Obj)[topics] as Obj[]) {
    for (const entry of t[partitions!] as Obj[]) visit(t[name] as string, entry[index!] as number, entry);
  }
}

/** The answer of API `apiKey` carrying `errorCode` as the whole request's error, every other field at its default. */
export function requestErrorAnswer(apiKey: number, errorCode: number): unknown {
  return { ...defaultStruct(API_SCHEMAS[apiKey]!.response.schema), errorCode };
}

export function fieldStruct(schema: StructSchema, name: string): StructSchema {
  const type = schema.fields.find((f) => f.name === name)?.type;
  if (type === undefined || typeof type === 'string') throw new Error(`${schema.name} has no struct field ${name}`);
  return type;
}
