/** Everything a handler may reach: settings, the stored topics, waiting fetches, consumer groups, the log, metrics, faults. */
import type { Logger } from 'pino';
import type { Authorizer } from '../acl/authorizer.js';
import type { CredentialStore } from '../auth/credential-store.js';
import type { GroupCoordinator } from '../groups/group-coordinator.js';
import type { ProducerEpochs } from '../log/producer-epochs.js';
import type { Storage } from '../log/storage.js';
import type { BrokerMetrics } from '../metrics/broker-metrics.js';
import type { BrokerConfig } from '../settings/settings.js';
import type { DynamicBrokerConfigs } from './dynamic-configs.js';
import type { Partitions } from './partition.js';
import type { SaslGate } from './sasl-gate.js';
import type { BufferPool } from '../memory/buffer-pool.js';
import type { RequestMemoryPool } from '../server/request-memory-pool.js';
import type { FaultRegistry } from '../faults/registry.js';
import type { TxnCoordinator } from '../transactions/txn-coordinator.js';
import type { ProducerActivity } from './producer-activity.js';
import type { ProducerIdQuota } from './producer-id-quota.js';
import type { Cluster } from './cluster.js';

export interface BrokerContext {
  /** The settings in force: those started with, under the dynamic broker configs altered since. */
  readonly config: BrokerConfig;
  readonly dynamicConfigs: DynamicBrokerConfigs;
  readonly storage: Storage;
  readonly producerEpochs: ProducerEpochs;
  /** Each partition's appends in turn, waiting fetches and producers' counts. */
  readonly partitions: Partitions;
  readonly groups: GroupCoordinator;
  readonly transactions: TxnCoordinator;
  readonly logger: Logger;
  readonly metrics: BrokerMetrics;
  /** The host and port clients are told to connect to this node at. */
  readonly advertised: { readonly host: string; readonly port: number };
  /** The node id requests reached. */
  readonly nodeId: number;
  /** The nodes served, who leads each partition and who coordinates each key. */
  readonly cluster: Cluster;
  readonly clusterId: string;
  /** Present when the listener requires SASL authentication. */
  readonly sasl: SaslGate | undefined;
  /** The --sasl-users file's credentials, when there is one. */
  readonly credentials: CredentialStore | undefined;
  /** Memory Fetch reads the log into, given back once each response is sent. */
  readonly fetchMemory: BufferPool;
  /** queued.max.request.bytes: requests and decompressed records in flight. */
  readonly requestMemory: RequestMemoryPool;
  /** Present with --authorizer: the ACLs and the decisions from them. */
  readonly authorizer: Authorizer | undefined;
  /** Faults installed to act on requests. */
  readonly faults: FaultRegistry;
  /** Tells of Produce's decisions per idempotent producer and partition. */
  readonly producerActivity: ProducerActivity;
  /** Present with --producer-ids-per-hour: new producer ids handed each principal. */
  readonly producerIdQuota: ProducerIdQuota | undefined;
}
