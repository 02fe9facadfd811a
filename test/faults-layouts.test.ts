/** Where requests name topics and partitions, what a request is without its faulted part, and the error entries answers get. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { API_SCHEMAS, ApiKey } from '../src/protocol/messages/apis.js';
import type { ProduceRequest } from '../src/protocol/messages/produce.js';
import type { MetadataRequest } from '../src/protocol/messages/metadata.js';
import { Reader, ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { Writer } from '../src/protocol/primitives/writer.js';
import { defaultStruct } from '../src/protocol/message-defaults.js';
import { addErrors, named, namesOf, topicFields, without } from '../src/faults/request-layouts.js';
import { everyVersionServed } from '../src/broker/api-table.js';
import { namedByTopicId } from '../src/broker/topic-ids.js';
import type { TopicInfo } from '../src/log/storage.js';
import { refusal } from '../src/faults/refusals.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import type { StructSchema } from '../src/protocol/messages/codec.js';
import { structArb } from './helpers/schema-arbitraries.js';

const topicsArb = fc.array(fc.record({ name: fc.constantFrom('a', 'b', 'c'), partitions: fc.array(fc.nat(5), { maxLength: 4 }) }), { maxLength: 4 });

test('a request without some of what it names names exactly the rest, in order', () => {
  fc.assert(
    fc.property(topicsArb, fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }), (topics, faultedFlags) => {
      const produce: ProduceRequest = {
        transactionalId: null,
        acks: -1,
        timeoutMs: 1000,
        topicData: topics.map((t) => ({ name: t.name, partitionData: t.partitions.map((index) => ({ index, records: null })) })),
      };
      const metadata: MetadataRequest = {
        // Topics named by id only are passed over, in both walks.
        topics: topics.flatMap((t, i) => [{ topicId: ZERO_UUID, name: t.name }, ...(i % 2 === 0 ? [{ topicId: ZERO_UUID, name: null }] : [])]),
        allowAutoTopicCreation: true,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      };
      for (const [apiKey, request] of [
        [ApiKey.Produce, produce],
        [ApiKey.Metadata, metadata],
      ] as const) {
        const all = named(apiKey, request)!;
        const faulted = new Set(all.flatMap((_, i) => (faultedFlags[i % 16] ? [i] : [])));
        assert.deepEqual(
          named(apiKey, without(apiKey, request, faulted)),
          all.filter((_, i) => !faulted.has(i)),
        );
      }
    }),
  );
});

test('APIs whose requests name no topic have no named entries', () => {
  assert.equal(named(ApiKey.Heartbeat, { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null }), undefined);
  assert.equal(namesOf(ApiKey.Heartbeat), undefined);
  assert.deepEqual([namesOf(ApiKey.Produce), namesOf(ApiKey.Metadata)], ['partition', 'topic']);
});

test('every API that takes errors per topic or partition encodes its error entries in every version served', () => {
  for (const [apiKey, handler] of everyVersionServed()) {
    const names = namesOf(apiKey);
    if (names === undefined) continue;
    const codec = API_SCHEMAS[apiKey]!.response;
    for (let version = handler.minVersion; version <= handler.maxVersion; version++) {
      const response = defaultStruct(codec.schema);
      const partition = names === 'partition' ? 3 : undefined;
      addErrors(apiKey, response, [
        { topic: 'one', partition, errorCode: 6 },
        { topic: 'two', partition, errorCode: 3 },
      ]);
      // Versions naming topics by id answer each entry with its topic's id, not its name.
      const [topics] = topicFields(apiKey)!.request;
      const ids: Record<string, string> = { one: '00000000-0000-0000-0000-000000000001', two: '00000000-0000-0000-0000-000000000002' };
      const request = { [topics]: Object.values(ids).map((topicId) => ({ topicId })) };
      const byId = namedByTopicId(apiKey, version, request, (id) => ({ name: id.endsWith('1') ? 'one' : 'two' }) as TopicInfo);
      const w = new Writer();
      codec.write(w, version, byId === undefined ? response : byId.withIds(response));
      const back = codec.read(new Reader(w.finish()), version);
      for (const [topic, code] of [
        ['one', 6],
        ['two', 3],
      ] as const) {
        const key = byId === undefined ? topic : ids[topic]!;
        assert.ok(hasError(back, key, code), `${codec.name} v${version}: ${key} answered ${code}`);
      }
    }
  }
});

/** Whether some entry of `value` names `topic` and holds error `code`, itself or in an entry below it. */
function hasError(value: unknown, topic: string, code: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const entries = Object.values(value);
  if (entries.includes(topic) && JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes(`"errorCode":${code}`)) return true;
  return entries.some((v) => hasError(v, topic, code));
}

/** Every error code in `value` that version `v` of its schema carries, at any depth. */
function errorCodes(schema: StructSchema, value: Record<string, unknown>, v: number): number[] {
  return schema.fields.flatMap((f) => {
    const x = value[f.name];
    if (f.versions == null || v < f.versions[0] || v > f.versions[1] || x === null) return [];
    if (typeof f.type === 'string') return /errorCode$/i.test(f.name) ? [x as number] : [];
    const struct = f.type;
    return (f.array ? (x as Record<string, unknown>[]) : [x as Record<string, unknown>]).flatMap((e) => errorCodes(struct, e, v));
  });
}

/** The items a request names: array elements with no arrays below them in the schema. */
function items(schema: StructSchema, value: Record<string, unknown>): number {
  let n = 0;
  for (const f of schema.fields) {
    const v = value[f.name];
    if (!f.array || !Array.isArray(v)) continue;
    const struct = typeof f.type === 'string' ? undefined : f.type;
    if (struct === undefined || !struct.fields.some((g) => g.array)) n += v.length;
    else for (const e of v as Record<string, unknown>[]) n += items(struct, e);
  }
  return n;
}

test('a request of any API that names no topic can be refused whole in every version: each item it names answered the error, none answered otherwise', () => {
  const ERROR = ErrorCode.COORDINATOR_NOT_AVAILABLE;
  for (const [apiKey, handler] of everyVersionServed()) {
    if (namesOf(apiKey) !== undefined) continue;
    for (let v = handler.minVersion; v <= handler.maxVersion; v++) {
      // DescribeLogDirs has no error before v3: Kafka answers such a refusal listing no directory.
      if (apiKey === ApiKey.DescribeLogDirs && v < 3) continue;
      fc.assert(
        fc.property(structArb(handler.request.schema, v), (value) => {
          const w = new Writer();
          handler.request.write(w, v, value);
          const request = handler.request.read(new Reader(w.finish()), v) as Record<string, unknown>;
          const out = new Writer(64, 4096);
          handler.response.write(out, v, refusal(apiKey, request, ERROR));
          const codes = errorCodes(handler.response.schema, handler.response.read(new Reader(out.finish()), v) as Record<string, unknown>, v);
          const where = `${handler.request.name} v${v}`;
          assert.ok(
            codes.every((c) => c === ERROR),
            `${where}: answered ${codes.join(', ')}`,
          );
          if (items(handler.request.schema, request) > 0) assert.ok(codes.length > 0, `${where}: no error answered`);
        }),
        { numRuns: 20 },
      );
    }
  }
});
