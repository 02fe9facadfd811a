/**
 * Every API a Kafka 3.9 broker advertises to clients is advertised under `--kafka-version 3.9`, and
 * every version brook serves under some release answers a minimal request (each field at its
 * default) instead of closing the connection.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildApiTable, everyVersionServed } from '../src/broker/api-table.js';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { KAFKA_VERSIONS } from '../src/protocol/kafka-releases.js';
import { API_SCHEMAS } from '../src/protocol/messages/apis.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { defaultStruct } from '../src/protocol/message-defaults.js';
import { WireClient } from './helpers/wire-client.js';

/**
 * What Apache Kafka 3.9 (KRaft) advertises on a client listener: ApiKeys in scope of the broker
 * listener, with their latest stable versions. GetTelemetrySubscriptions (71) and PushTelemetry
 * (72) are left out, as Kafka leaves them out without a telemetry plugin.
 */
const KAFKA_3_9: Record<number, [number, number]> = {
  0: [0, 11],
  1: [0, 17],
  2: [0, 9],
  3: [0, 12],
  8: [0, 9],
  9: [0, 9],
  10: [0, 6],
  11: [0, 9],
  12: [0, 4],
  13: [0, 5],
  14: [0, 5],
  15: [0, 5],
  16: [0, 5],
  17: [0, 1],
  18: [0, 4],
  19: [0, 7],
  20: [0, 6],
  21: [0, 2],
  22: [0, 5],
  23: [0, 4],
  24: [0, 5],
  25: [0, 4],
  26: [0, 4],
  27: [0, 1],
  28: [0, 4],
  29: [0, 3],
  30: [0, 3],
  31: [0, 3],
  32: [0, 4],
  33: [0, 2],
  34: [0, 2],
  35: [0, 4],
  36: [0, 2],
  37: [0, 3],
  38: [0, 3],
  39: [0, 2],
  40: [0, 2],
  41: [0, 3],
  42: [0, 2],
  43: [0, 2],
  44: [0, 1],
  45: [0, 0],
  46: [0, 0],
  47: [0, 0],
  48: [0, 1],
  49: [0, 1],
  50: [0, 0],
  51: [0, 0],
  55: [0, 2],
  57: [0, 1],
  60: [0, 1],
  61: [0, 0],
  64: [0, 0],
  65: [0, 0],
  66: [0, 1],
  68: [0, 0],
  69: [0, 0],
  74: [0, 0],
  75: [0, 0],
  80: [0, 0],
  81: [0, 0],
};

/** APIs brook serves fewer versions of than Kafka: the old record formats. */
const NARROWER: Record<number, [number, number]> = { 0: [3, 11], 1: [4, 17] };

/** Fields a minimal request cannot leave at their default and still get an answer. */
const OVERRIDES: Record<number, Record<string, unknown>> = {
  // acks=0 is answered with nothing, as in Kafka.
  0: { acks: -1 },
};

/** A broker of each release, and a connection to it. */
const brokers: { version: (typeof KAFKA_VERSIONS)[number]; broker: Broker; client: WireClient }[] = [];

before(async () => {
  for (const version of KAFKA_VERSIONS) {
    const broker = await startBroker({ kafkaVersion: version });
    brokers.push({ version, broker, client: await WireClient.connect(broker.port) });
  }
});

after(async () => {
  for (const { broker, client } of brokers) {
    client.close();
    await broker.close();
  }
});

test("ApiVersions under --kafka-version 3.9 advertises every API Kafka 3.9 advertises to clients, at Kafka's versions bar the old record formats", async () => {
  const { client } = brokers.find((b) => b.version === '3.9')!;
  const { apiKeys } = await client.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'coverage', clientSoftwareVersion: '1' });
  const byKey = Object.fromEntries(apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
  assert.deepEqual(byKey, { ...KAFKA_3_9, ...NARROWER });
});

test('every version brook serves answers a minimal request, on one connection to a broker of a release serving it', async () => {
  const tables = new Map(brokers.map((b) => [b, buildApiTable(undefined, b.version)]));
  for (const [apiKey, { minVersion, maxVersion }] of everyVersionServed()) {
    const api = API_SCHEMAS[apiKey]!;
    for (let version = minVersion; version <= maxVersion; version++) {
      const serving = brokers.find((b) => {
        const handler = tables.get(b)!.get(apiKey);
        return handler !== undefined && handler.minVersion <= version && version <= handler.maxVersion;
      })!;
      const request = { ...defaultStruct(api.request.schema), ...OVERRIDES[apiKey] };
      const response = await serving.client
        .request(api.request, api.response, version, request)
        .catch((err: Error) => assert.fail(`${api.name} v${version} under ${serving.version}: ${err.message}`));
      assert.equal(typeof response, 'object', `${api.name} v${version}`);
    }
  }
});
