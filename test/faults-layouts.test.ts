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
import { addErrors, named, namesOf, without } from '../src/faults/request-layouts.js';
import { buildApiTable } from '../src/broker/api-table.js';

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
  for (const [apiKey, handler] of buildApiTable(undefined)) {
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
      const w = new Writer();
      codec.write(w, version, response);
      const back = codec.read(new Reader(w.finish()), version);
      for (const [topic, code] of [
        ['one', 6],
        ['two', 3],
      ] as const) {
        assert.ok(hasError(back, topic, code), `${codec.name} v${version}: ${topic} answered ${code}`);
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
