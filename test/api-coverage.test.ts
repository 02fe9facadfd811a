/**
 * Every API a Kafka 3.9 broker advertises to clients is advertised, and every version advertised
 * answers a minimal request (each field at its default) instead of closing the connection.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
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
  68: [0, 1],
  69: [0, 1],
  74: [0, 0],
  75: [0, 0],
  80: [0, 0],
  81: [0, 0],
};

/** APIs brook serves fewer versions of than Kafka: old record formats, and what came after. */
const NARROWER: Record<number, [number, number]> = { 0: [3, 11], 1: [4, 17] };

/**
 * Beyond 3.9, as Kafka 4.x serves them: transactions v2 (KIP-890: Produce v12, EndTxn v5,
 * TxnOffsetCommit v5), topics named by id (KIP-516: Produce v13, Fetch v18), ListOffsets v10,
 * Metadata v13 (KIP-1102), DescribeGroups v6 (KIP-1043), UpdateFeatures v2 and DescribeCluster v2.
 */
const KAFKA_4: Record<number, [number, number]> = {
  0: [3, 13],
  1: [4, 18],
  2: [0, 10],
  3: [0, 13],
  15: [0, 6],
  26: [0, 5],
  28: [0, 5],
  57: [0, 2],
  60: [0, 2],
};

/** Fields a minimal request cannot leave at their default and still get an answer. */
const OVERRIDES: Record<number, Record<string, unknown>> = {
  // acks=0 is answered with nothing, as in Kafka.
  0: { acks: -1 },
};

let broker: Broker;
let advertised: ApiVersionsResponse['apiKeys'];

before(async () => {
  broker = await startBroker({ port: 0 });
  const c = await WireClient.connect(broker.port);
  ({ apiKeys: advertised } = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'coverage', clientSoftwareVersion: '1' }));
  c.close();
});

after(() => broker.close());

test("ApiVersions advertises every API Kafka 3.9 advertises to clients, at Kafka's versions bar a few narrower ones, and Kafka 4's", () => {
  const byKey = Object.fromEntries(advertised.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
  assert.deepEqual(byKey, { ...KAFKA_3_9, ...NARROWER, ...KAFKA_4 });
});

test('every version of every advertised API answers a minimal request on the same connection', async () => {
  const c = await WireClient.connect(broker.port);
  try {
    for (const { apiKey, minVersion, maxVersion } of advertised) {
      const api = API_SCHEMAS[apiKey]!;
      for (let version = minVersion; version <= maxVersion; version++) {
        const request = { ...defaultStruct(api.request.schema), ...OVERRIDES[apiKey] };
        const response = await c
          .request(api.request, api.response, version, request)
          .catch((err: Error) => assert.fail(`${api.name} v${version}: ${err.message}`));
        assert.equal(typeof response, 'object', `${api.name} v${version}`);
      }
    }
  } finally {
    c.close();
  }
});
