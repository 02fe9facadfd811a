/**
 * The floor under brook's CPU per produced batch in Node: brook's own listener, connections,
 * framing, dispatch and codecs, answering each Produce as stored at once, with no checks, no
 * idempotence rules and no log. Serves what an idempotent producer asks for (ApiVersions,
 * Metadata, InitProducerId, Produce) as a one-broker cluster whose every topic has as many
 * partitions as its argument says. Prints `floor listening on HOST:PORT` once it is.
 *
 * It runs brook's compiled code (`npm run build`), as `brook serve` does:
 *
 *     node bench/produce-floor-server.mjs PARTITIONS
 */
import pino from 'pino';
import { buildApiTable } from '../dist/broker/api-table.js';
import { createDispatcher } from '../dist/broker/dispatch.js';
import { featureLevels } from '../dist/broker/features.js';
import { apiVersions } from '../dist/broker/handlers/api-versions.js';
import { ErrorCode } from '../dist/protocol/error-codes.js';
import { ApiKey } from '../dist/protocol/messages/apis.js';
import { RECORD_COUNT } from '../dist/protocol/record-batch.js';
import { BrokerMetrics } from '../dist/metrics/broker-metrics.js';
import { DEFAULT_CONFIG } from '../dist/settings/settings.js';
import { TcpServer } from '../dist/server/tcp-server.js';
import { RequestMemoryPool } from '../dist/server/request-memory-pool.js';

const HOST = '127.0.0.1';
const NO_UUID = '00000000-0000-0000-0000-000000000000';
const ANY_INT32 = -2147483648;
const PARTITIONS = Number(process.argv[2]);

/** Each partition's next offset, by topic. */
const nextOffsets = new Map();
let port = 0;
let nextProducerId = 0n;

/** The APIs and features of the release `brook serve` speaks by default. */
const real = buildApiTable(undefined, DEFAULT_CONFIG.kafkaVersion);
/** A served API with a handler of the floor's, at the real one's versions. */
const floorApi = (apiKey, handle) => [apiKey, { ...real.get(apiKey), handle }];

const table = new Map([
  floorApi(ApiKey.Metadata, (request) => ({
    throttleTimeMs: 0,
    brokers: [{ nodeId: 0, host: HOST, port, rack: null }],
    clusterId: 'floor',
    controllerId: 0,
    clusterAuthorizedOperations: ANY_INT32,
    topics: (request.topics ?? []).map(({ name }) => ({
      errorCode: ErrorCode.NONE,
      name,
      topicId: NO_UUID,
      isInternal: false,
      topicAuthorizedOperations: ANY_INT32,
      partitions: Array.from({ length: PARTITIONS }, (_, partitionIndex) => ({
        errorCode: ErrorCode.NONE,
        partitionIndex,
        leaderId: 0,
        leaderEpoch: 0,
        replicaNodes: [0],
        isrNodes: [0],
        offlineReplicas: [],
      })),
    })),
  })),
  floorApi(ApiKey.InitProducerId, () => ({
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    producerId: nextProducerId++,
    producerEpoch: 0,
  })),
  floorApi(ApiKey.Produce, (request) => ({
    throttleTimeMs: 0,
    responses: request.topicData.map(({ name, partitionData }) => {
      let offsets = nextOffsets.get(name);
      if (offsets === undefined) nextOffsets.set(name, (offsets = Array.from({ length: PARTITIONS }, () => 0)));
      return {
        name,
        partitionResponses: partitionData.map(({ index, records }) => {
          const baseOffset = offsets[index];
          offsets[index] = baseOffset + records.readInt32BE(RECORD_COUNT);
          return {
            index,
            errorCode: ErrorCode.NONE,
            baseOffset: BigInt(baseOffset),
            logAppendTimeMs: -1n,
            logStartOffset: 0n,
            recordErrors: [],
            errorMessage: null,
          };
        }),
      };
    }),
  })),
]);
table.set(ApiKey.ApiVersions, apiVersions(table, featureLevels(DEFAULT_CONFIG.kafkaVersion)));

/** What dispatch asks of the broker when there is no SASL, no fault and one node. */
const context = { sasl: undefined, faults: { installed: [] }, cluster: { simulated: false }, metrics: new BrokerMetrics() };
const log = pino({ level: 'warn' });
const server = new TcpServer(
  createDispatcher(table, context),
  {
    maxRequestBytes: 100 << 20,
    maxQueuedResponses: 1000,
    maxUnsentResponseBytes: 100 << 20,
    maxConnections: 100,
    maxConnectionsPerAddress: 100,
    idleTimeoutMs: 600_000,
  },
  // Nothing here is decompressed: no share for it.
  new RequestMemoryPool(500 << 20, 100 << 20, 0),
  log,
);
({ port } = await server.listen(HOST, 0));
console.log(`floor listening on ${HOST}:${port}`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
