/**
 * `--kafka-version`: each profile advertises what that Kafka release advertises to clients, as
 * its schemas say (the table generated from them, not a copy), narrowed only where brook serves
 * fewer versions, and refuses what the release refuses as it does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startBroker } from '../src/broker/start-broker.js';
import { buildApiTable } from '../src/broker/api-table.js';
import { releaseApis, KAFKA_VERSIONS, type KafkaVersion } from '../src/protocol/kafka-releases.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { ProduceRequest } from '../src/protocol/messages/produce.js';
import { defaultStruct } from '../src/protocol/message-defaults.js';
import { releasesSource } from '../scripts/gen-kafka-releases.js';
import { withApisTable } from '../scripts/readme-apis.js';
import { WireClient } from './helpers/wire-client.js';

test('the release tables are what the generator makes from the recorded schemas', async () => {
  assert.equal(await readFile('src/protocol/kafka-releases.ts', 'utf8'), releasesSource());
});

test('the recorded versions of 4.3.1 and 3.9.0 agree with their whole schemas, which the codecs are made from', async () => {
  for (const [release, dir] of [
    ['4.3.1', 'scripts/kafka-schemas'],
    ['3.9.0', 'scripts/kafka-schemas/3.9'],
  ] as const) {
    const recorded = JSON.parse(await readFile(`scripts/kafka-schemas/releases/${release}.json`, 'utf8')) as {
      requests: { apiKey: number; validVersions: string }[];
    };
    const files = (await readdir(dir)).filter((f) => f.endsWith('Request.json') && f !== 'RequestHeader.json');
    assert.ok(files.length > 50, `${dir} holds the served APIs' schemas`);
    for (const file of files) {
      const schema = JSON.parse((await readFile(join(dir, file), 'utf8')).replace(/^\s*\/\/.*$/gm, '')) as { apiKey: number; validVersions: string };
      const entry = recorded.requests.find((r) => r.apiKey === schema.apiKey);
      assert.equal(entry?.validVersions, schema.validVersions, `${release} ${file}`);
    }
  }
});

/** The versions brook's handlers serve, where fewer than a release's: old record formats, topic ids, and what came later. */
const BROOK: Record<number, [number, number]> = {
  0: [3, 13], // Produce: v0-2 are the old record formats
  1: [4, 18], // Fetch: v0-3 old record formats
  2: [0, 10], // ListOffsets: v11 lists the earliest offset pending upload to remote storage
  8: [0, 9], // OffsetCommit: v10 names topics by id
  9: [0, 9], // OffsetFetch: likewise
  27: [0, 1], // WriteTxnMarkers
  35: [0, 4], // DescribeLogDirs
  45: [0, 0], // AlterPartitionReassignments
  66: [0, 1], // ListTransactions
  74: [0, 0], // ListConfigResources
  80: [0, 0], // AddRaftVoter
};
/** APIs of 4.x brook does not serve: share groups (KIP-932) and streams groups (KIP-1071). */
const NOT_SERVED = new Set([76, 77, 78, 79, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92]);

function expected(version: KafkaVersion): Record<number, [number, number]> {
  const out: Record<number, [number, number]> = {};
  for (const api of releaseApis(version)) {
    if (NOT_SERVED.has(api.apiKey)) continue;
    const [low, high] = BROOK[api.apiKey] ?? [0, Infinity];
    const min = Math.max(api.minVersion, low);
    // A release advertising versions below those it serves (Produce, KAFKA-18659) is copied.
    out[api.apiKey] = [api.advertisedMin < api.minVersion && low <= api.minVersion ? api.advertisedMin : min, Math.min(api.maxVersion, high)];
  }
  return out;
}

test('brook serves every version a Kafka 4.0 broker serves a client, as docs/departures.md says', () => {
  const table = buildApiTable(undefined, '4.0');
  const short = releaseApis('4.0').filter((api) => {
    const served = table.get(api.apiKey);
    return served === undefined || served.minVersion > api.minVersion || served.maxVersion < api.maxVersion;
  });
  assert.deepEqual(
    short.map((a) => a.name),
    [],
  );
});

/** metadata.version, transaction.version and group.version a new cluster of each release finalizes. */
const FINALIZED: Record<KafkaVersion, Record<string, number>> = {
  '3.9': { 'metadata.version': 21 },
  '4.0': { 'group.version': 1, 'metadata.version': 25, 'transaction.version': 2 },
  '4.1': { 'group.version': 1, 'metadata.version': 27, 'transaction.version': 2 },
  '4.2': { 'group.version': 1, 'metadata.version': 29, 'transaction.version': 2 },
  '4.3': { 'group.version': 1, 'metadata.version': 30, 'transaction.version': 2 },
};

for (const version of KAFKA_VERSIONS) {
  test(`--kafka-version ${version}: ApiVersions advertises the release's versions and finalized features`, async (t) => {
    const broker = await startBroker({ kafkaVersion: version });
    t.after(() => broker.close());
    const c = await WireClient.connect(broker.port);
    t.after(() => c.close());
    const answer = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'profiles', clientSoftwareVersion: '1' });
    assert.deepEqual(Object.fromEntries(answer.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]])), expected(version));
    const finalized = Object.fromEntries((answer.finalizedFeatures ?? []).map((f) => [f.name, f.maxVersionLevel]));
    assert.deepEqual(finalized, FINALIZED[version]);
  });
}

test('without a kafkaVersion, brook answers as Kafka 4.0, the newest release it serves whole', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.close());
  const c = await WireClient.connect(broker.port);
  t.after(() => c.close());
  const answer = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'profiles', clientSoftwareVersion: '1' });
  assert.deepEqual(Object.fromEntries(answer.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]])), expected('4.0'));
  assert.deepEqual(Object.fromEntries((answer.finalizedFeatures ?? []).map((f) => [f.name, f.maxVersionLevel])), FINALIZED['4.0']);
});

test("a Produce v2 under 4.0 gets Kafka 4.0's answer: the connection closed, after the answers before it", async (t) => {
  const broker = await startBroker({ kafkaVersion: '4.0' });
  t.after(() => broker.close());
  const c = await WireClient.connect(broker.port);
  t.after(() => c.close());
  const { apiKeys } = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'profiles', clientSoftwareVersion: '1' });
  assert.equal(apiKeys.find((k) => k.apiKey === 0)?.minVersion, 0, 'advertised from v0, as Kafka 4.0 does');
  const produce = { ...defaultStruct(ProduceRequest.schema), acks: -1 } as ProduceRequest;
  c.sendRaw(Buffer.concat([c.frame(ApiVersionsRequest, 0, { clientSoftwareName: '', clientSoftwareVersion: '' }), c.frame(ProduceRequest, 2, produce)]));
  assert.ok((await c.nextFrame()) !== undefined, 'the ApiVersions before it is answered');
  assert.equal(await c.nextFrame(), undefined, 'the Produce v2 is not: the connection is closed');
  assert.ok(c.closed);
});

test('a version below a release floor is refused under that release and served under an older one', async (t) => {
  const listOffsetsV0: ListOffsetsRequest = { replicaId: -1, isolationLevel: 0, timeoutMs: 0, topics: [] };
  const older = await startBroker({ kafkaVersion: '3.9' });
  t.after(() => older.close());
  const c39 = await WireClient.connect(older.port);
  t.after(() => c39.close());
  assert.deepEqual((await c39.request(ListOffsetsRequest, ListOffsetsResponse, 0, listOffsetsV0)).topics, []);

  const newer = await startBroker({ kafkaVersion: '4.0' });
  t.after(() => newer.close());
  const c40 = await WireClient.connect(newer.port);
  t.after(() => c40.close());
  c40.sendRaw(c40.frame(ListOffsetsRequest, 0, listOffsetsV0));
  assert.equal(await c40.nextFrame(), undefined, 'ListOffsets v0 closes the connection, as Kafka 4.0 removed it');
});

test("the README's APIs table is what npm run gen:readme makes of the API table and the releases", async () => {
  const readme = await readFile('README.md', 'utf8');
  assert.equal(withApisTable(readme), readme, 'README.md differs (run npm run gen:readme)');
});
