/**
 * Requests naming topics by id (KIP-516: Produce v13, Fetch v13+): each id is given its topic's
 * name before anything else reads the request (a simulated node, faults, the authorizer, the
 * handler), and each topic of the answer its id. An id no topic has is taken out of the request
 * and each of its partitions answered UNKNOWN_TOPIC_ID, as Kafka's `KafkaApis.handleProduceRequest`
 * and `handleFetchRequest` answer it, before authorizing (a Produce with acks=0 closes the
 * connection instead, as for any error it cannot answer).
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { ApiKey } from '../protocol/messages/apis.js';
import { named, topicFields, type NamedError } from '../faults/request-layouts.js';
import type { TopicInfo } from '../log/storage.js';

type Obj = Record<string, unknown>;

/** The first version of each API that names topics by id alone. */
const BY_ID_FROM: Readonly<Partial<Record<number, number>>> = { [ApiKey.Produce]: 13, [ApiKey.Fetch]: 13 };

export interface NamedByTopicId {
  /** The request with each known id's topic named and each unknown id taken out. */
  readonly request: unknown;
  /** The unknown ids' partitions, each UNKNOWN_TOPIC_ID, named as the answer names them. */
  readonly errors: readonly NamedError[];
  /** The answer, with the unknown ids' partitions in it, with every topic's id set. */
  withIds(response: unknown): unknown;
}

/** undefined: the request names its topics by name. */
export function namedByTopicId(
  apiKey: number,
  apiVersion: number,
  request: unknown,
  topicById: (topicId: string) => TopicInfo | undefined,
): NamedByTopicId | undefined {
  const from = BY_ID_FROM[apiKey];
  if (from === undefined || apiVersion < from) return undefined;
  const [topics, name] = topicFields(apiKey)!.request;
  // By the name each topic is answered under: its own, or for an unknown id one no topic can have, never written at these versions.
  const ids = new Map<string, string>();
  const known: Obj[] = [];
  const unknown: Obj[] = [];
  for (const t of (request as Obj)[topics] as Obj[]) {
    const id = t.topicId as string;
    const topic = topicById(id);
    const answeredAs = topic?.name ?? `\u0000${id}`;
    ids.set(answeredAs, id);
    (topic === undefined ? unknown : known).push({ ...t, [name]: answeredAs });
  }
  const errors: NamedError[] = (named(apiKey, { [topics]: unknown }) ?? []).map((n) => ({ ...n, errorCode: ErrorCode.UNKNOWN_TOPIC_ID }));
  return {
    request: { ...(request as Obj), [topics]: known },
    errors,
    withIds(response) {
      const [answered, answeredName] = topicFields(apiKey)!.response;
      for (const t of (response as Obj)[answered] as Obj[]) t.topicId = ids.get(t[answeredName] as string) ?? t.topicId;
      return response;
    },
  };
}
