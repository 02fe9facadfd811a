/** Assembles a running broker: storage, handlers, TCP listener; takes it down, and restarts it. */
import { mkdtemp, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { GroupCoordinator } from '../groups/group-coordinator.js';
import { TxnCoordinator } from '../transactions/txn-coordinator.js';
import { lockDirectory } from '../log/dir-lock.js';
import { makeDirectory } from '../log/make-directory.js';
import { ProducerEpochs } from '../log/producer-epochs.js';
import { Storage } from '../log/storage.js';
import { DynamicBrokerConfigs } from './dynamic-configs.js';
import { BrokerMetrics } from '../metrics/broker-metrics.js';
import { serveMetrics } from '../metrics/metrics-server.js';
import { TcpServer } from '../server/tcp-server.js';
import { buildApiTable, everyVersionServed } from './api-table.js';
import type { BrokerContext } from './broker-context.js';
import type { ApiHandler } from './api-handler.js';
import { DEFAULT_CONFIG, type BrokerConfig } from '../settings/settings.js';
import { MAX_TIMER_MS } from '../settings/kinds.js';
import { consumerGroupTimeProblem, listenerProblem, memoryProblem, optionProblem } from './option-checks.js';
import { topicImage } from './topic-image.js';
import { formatHostPort } from '../server/host-port.js';
import { createDispatcher } from './dispatch.js';
import { guarded } from './authorization.js';
import { Partitions } from './partition.js';
import { txnParticipants } from './txn-participants.js';
import { offsetsLog } from './offsets-log.js';
import { txnStateLog } from './txn-state-log.js';
import { SaslGate } from './sasl-gate.js';
import { CredentialStore } from '../auth/credential-store.js';
import { Authorizer } from '../acl/authorizer.js';
import { BufferPool } from '../memory/buffer-pool.js';
import { MemoryBudget } from '../memory/memory-budget.js';
import { RequestMemoryPool } from '../server/request-memory-pool.js';
import { DECOMPRESSION_WORKING_FACTOR } from '../protocol/compression.js';
import { FaultRegistry, type Faults } from '../faults/registry.js';
import { serveConsole } from '../console/console-server.js';
import { ProducerActivity } from './producer-activity.js';
import { ProducerIdQuota } from './producer-id-quota.js';
import { Cluster } from './cluster.js';
import { NODE_ID } from './config.js';
import { NodeListeners } from './node-listeners.js';
import { clusterControl, type ClusterControl } from './cluster-control.js';

/** Free memory kept for Fetch reads between responses. */
const KEPT_FETCH_BYTES = 16 * 1024 * 1024;
/** A partition unwritten and unread this long gives its memory back (--partition-memory-bytes). */
const PARTITION_IDLE_MS = 10_000;

/** The settings of src/settings/settings.ts, each optional; the README lists them. */
export type BrokerOptions = Partial<BrokerConfig>;

export interface RestartOptions {
  /** How long the broker stays down, its port closed, before it starts again; default 0. */
  readonly downMs?: number;
}

export interface Broker {
  /** "host:port", as clients should be given it. */
  readonly bootstrap: string;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** The bound metrics port, when `metricsPort` was given. */
  readonly metricsPort: number | undefined;
  /** The bound web console port, when `consolePort` was given. */
  readonly consolePort: number | undefined;
  /** Faults that make requests fail as they fail with Kafka: errors, lost answers, delays, closed connections. */
  readonly faults: Faults;
  /** The nodes served (`nodes`), and the controls that move leaders and stop, start or isolate nodes. */
  readonly cluster: ClusterControl;
  /**
   * Stops as close() does, but for the data directory: every connection closed, the log closed
   * cleanly. After `downMs` it starts again on the same port and data, with the same faults
   * installed; resolves once it listens again.
   */
  restart(options?: RestartOptions): Promise<void>;
  close(): Promise<void>;
}

/** One start of a broker, up to its stop. */
interface Running {
  readonly port: number;
  /** Each live node's listener, by node id. */
  readonly ports: ReadonlyMap<number, number>;
  readonly listeners: NodeListeners;
  readonly metricsPort: number | undefined;
  readonly consolePort: number | undefined;
  close(): Promise<void>;
}

export async function startBroker(options: BrokerOptions = {}): Promise<Broker> {
  const problem = optionProblem(options);
  if (problem !== undefined) throw new TypeError(`startBroker: ${problem}`);
  const unreachable = listenerProblem(options);
  if (unreachable !== undefined) throw new Error(unreachable);
  const unfit = memoryProblem(options);
  if (unfit !== undefined) throw new Error(unfit);
  const logger = options.logger ?? pino({ level: 'warn' }, pino.destination(2));
  const faults = new FaultRegistry(everyVersionServed(), logger, options.nodes ?? DEFAULT_CONFIG.nodes);
  for (const rule of options.faults ?? []) faults.add(rule);
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'brook-')));
  const removeTemporary = (): Promise<void> => (temporary ? rm(dataDir, { recursive: true, force: true }) : Promise.resolve());
  const config: BrokerConfig = { ...DEFAULT_CONFIG, ...withoutUndefined(options), dataDir, port: options.port ?? (temporary ? 0 : DEFAULT_CONFIG.port) };
  const outOfRange = consumerGroupTimeProblem(config);
  if (outOfRange !== undefined) {
    await removeTemporary();
    throw new RangeError(`startBroker: ${outOfRange}`);
  }
  const cluster = new Cluster(config.nodes, config);
  let running: Running;
  try {
    running = await run(config, logger, faults, cluster, new Map());
  } catch (err) {
    await removeTemporary();
    throw err;
  }
  const { port, metricsPort, consolePort } = running;
  // Restarts and the close happen one after another, in the order asked for.
  let lifecycle = Promise.resolve();
  let closing: Promise<void> | undefined;
  // Each node keeps its port across restarts and stops.
  const ports = new Map(running.ports);
  return {
    cluster: clusterControl(
      cluster,
      config.host,
      () => running.listeners,
      ports,
      (work) => (lifecycle = lifecycle.catch(() => undefined).then(work)),
    ),
    bootstrap: formatHostPort(config.host, port),
    host: config.host,
    port,
    dataDir,
    metricsPort,
    consolePort,
    faults,
    restart({ downMs = 0 }: RestartOptions = {}) {
      if (!Number.isInteger(downMs) || downMs < 0 || downMs > MAX_TIMER_MS)
        return Promise.reject(new TypeError(`restart: downMs must be a whole number from 0 to ${MAX_TIMER_MS}, not ${String(downMs)}`));
      if (closing !== undefined) return Promise.reject(new Error('restart: the broker is closed'));
      lifecycle = lifecycle
        .catch(() => undefined)
        .then(async () => {
          logger.info({ downMs }, 'restarting');
          await running.close();
          await sleep(downMs);
          running = await run({ ...config, port, metricsPort, consolePort }, logger, faults, cluster, ports);
        });
      return lifecycle;
    },
    close() {
      closing ??= lifecycle
        .catch(() => undefined)
        .then(() => running.close())
        .then(removeTemporary);
      return closing;
    },
  };
}

/** Opens the data directory and listens; on failure, closes what it opened. */
async function run(config: BrokerConfig, logger: Logger, faults: FaultRegistry, cluster: Cluster, ports: ReadonlyMap<number, number>): Promise<Running> {
  const { dataDir } = config;
  // What is open so far, closed in reverse order on stop or on a failed start.
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async (): Promise<void> => {
    for (const close of closers.reverse()) await close();
  };
  try {
    await makeDirectory(dataDir);
    closers.push(await lockDirectory(dataDir));
    // Decompression's share: what one request's records may take while the codecs open them.
    const decompressing = Math.ceil(config.maxRequestBytes * DECOMPRESSION_WORKING_FACTOR);
    const requestMemory = new RequestMemoryPool(config.queuedMaxRequestBytes, config.maxRequestBytes, decompressing);
    const partitionMemory = new MemoryBudget(config.partitionMemoryBytes);
    partitionMemory.startSweeping(PARTITION_IDLE_MS);
    closers.push(async () => partitionMemory.stopSweeping());
    const dynamicConfigs = await DynamicBrokerConfigs.open(dataDir, config);
    const storage = await Storage.open(dataDir, {
      topicDefaults: dynamicConfigs.current,
      flush: config.flush,
      retentionCheckIntervalMs: config.retentionCheckIntervalMs,
      producerIdExpirationMs: config.producerIdExpirationMs,
      memory: partitionMemory,
      logger,
      cleaner: config.cleanerEnable
        ? { dedupeBufferBytes: config.cleanerDedupeBufferSize, backoffMs: config.cleanerBackoffMs, ioMaxBytesPerSecond: config.cleanerIoMaxBytesPerSecond }
        : undefined,
    });
    closers.push(() => storage.close());
    await cluster.attach(storage, dataDir, logger);
    closers.push(() => cluster.saved());
    const metrics = new BrokerMetrics();
    const producerActivity = new ProducerActivity();
    const partitions = new Partitions(storage, producerActivity, (verdict) => metrics.idempotence(verdict));
    // Offsets are read back from __consumer_offsets through the partitions, as they are appended.
    const offsets = offsetsLog(partitions, config, (topic, index) => cluster.epochOf(topic, index));
    const groups = await GroupCoordinator.open(dataDir, offsets, {
      log: logger,
      offsetsRetentionMs: config.offsetsRetentionMinutes * 60_000,
      cleanupIntervalMs: config.offsetsRetentionCheckIntervalMs,
      consumer: {
        sessionTimeoutMs: config.consumerGroupSessionTimeoutMs,
        heartbeatIntervalMs: config.consumerGroupHeartbeatIntervalMs,
        maxSize: config.consumerGroupMaxSize,
        assignors: config.consumerGroupAssignors,
        migrationPolicy: config.consumerGroupMigrationPolicy,
      },
      topics: () => topicImage(storage),
    });
    closers.push(() => groups.close());
    await groups.deleteOffsetsOfMissingTopics((topic) => storage.topic(topic) !== undefined);
    // Opened once partitions and groups are: it completes what a stop left decided.
    const transactions = await TxnCoordinator.open(
      dataDir,
      txnParticipants(partitions, groups, (topic, index) => cluster.epochOf(topic, index)),
      {
        stateLog: txnStateLog(partitions, config, (topic, index) => cluster.epochOf(topic, index)),
        maxTimeoutMs: config.transactionMaxTimeoutMs,
        abortIntervalMs: config.transactionAbortTimedOutTransactionCleanupIntervalMs,
        idExpirationMs: config.transactionalIdExpirationMs,
        removeExpiredIntervalMs: config.transactionRemoveExpiredTransactionCleanupIntervalMs,
        log: logger,
        events: { begun: () => metrics.transactionBegun(), ended: (outcome) => metrics.transactionEnded(outcome) },
      },
    );
    closers.push(() => transactions.close());
    const producerEpochs = await ProducerEpochs.open(dataDir, config.producerIdExpirationMs, Date.now());
    const credentials = config.saslUsersFile === undefined ? undefined : await CredentialStore.open(config.saslUsersFile);
    const sasl = credentials === undefined ? undefined : new SaslGate(credentials, config.failedAuthenticationDelayMs);
    const policy = { superUsers: new Set(config.superUsers ?? []), allowIfNoAclFound: config.allowEveryoneIfNoAclFound };
    const authorizer = config.authorizer ? await Authorizer.open(dataDir, policy) : undefined;
    const context: { -readonly [K in keyof BrokerContext]: BrokerContext[K] } = {
      get config() {
        return dynamicConfigs.current;
      },
      dynamicConfigs,
      storage,
      producerEpochs,
      partitions,
      groups,
      transactions,
      logger,
      metrics,
      advertised: config.advertisedListener ?? { host: config.host, port: config.port },
      nodeId: NODE_ID,
      cluster,
      clusterId: storage.clusterId,
      sasl,
      credentials,
      fetchMemory: new BufferPool(KEPT_FETCH_BYTES),
      requestMemory,
      authorizer,
      faults,
      producerActivity,
      producerIdQuota: config.producerIdsPerHour === undefined ? undefined : new ProducerIdQuota(config.producerIdsPerHour),
    };
    const table = authorizer === undefined ? buildApiTable(sasl, config.kafkaVersion) : guardedTable(buildApiTable(sasl, config.kafkaVersion));
    const limits = {
      maxRequestBytes: config.maxRequestBytes,
      maxQueuedResponses: config.maxQueuedResponsesPerConnection,
      maxUnsentResponseBytes: config.fetchMaxBytes,
      maxConnections: config.maxConnections,
      maxConnectionsPerAddress: config.maxConnectionsPerIp,
      addressOverrides: config.maxConnectionsPerIpOverrides,
      idleTimeoutMs: config.connectionsMaxIdleMs,
    };
    // Node 1 is the broker itself; each other node sees it with its own id and address.
    const nodeContext = (nodeId: number): BrokerContext =>
      nodeId === NODE_ID ? context : Object.create(context, { nodeId: { value: nodeId }, advertised: { get: () => cluster.address(nodeId) } });
    const listeners = new NodeListeners(
      cluster,
      config.host,
      (nodeId, port) => {
        const shift = nodeId - NODE_ID;
        return config.advertisedListener === undefined
          ? { host: config.host, port }
          : { ...config.advertisedListener, port: config.advertisedListener.port + shift };
      },
      (handler) => new TcpServer(handler, limits, requestMemory, logger, config.tls),
      (nodeId) => createDispatcher(table, nodeContext(nodeId)),
    );
    metrics.countConnections(() => listeners.connectionCount);
    metrics.countFailedPartitions(() => storage.failedPartitions());
    const { cleaner } = storage;
    if (cleaner !== undefined) metrics.countCleaner({ stats: cleaner.stats, dirtyRatios: () => cleaner.dirtyRatios() });
    metrics.countPartitionMemory(() => partitionMemory.usedBytes);
    metrics.countRequestMemory(requestMemory);
    metrics.countOpenTransactions(() => transactions.openCount());
    metrics.countUnstableOffsets(() => storage.unstableOffsets());
    metrics.countGroups({
      groups: () => groups.list(),
      rebalances: () => groups.rebalances(),
      offsets: () => groups.offsetCount(),
    });
    closers.push(async () => {
      partitions.close();
      await listeners.close();
    });
    const boundPorts = new Map<number, number>();
    for (const nodeId of cluster.leadership.nodes) {
      if (cluster.stopped.has(nodeId)) continue;
      // Consecutive ports from the first, or free ones; after a restart, the port a node had.
      const port = nodeId === NODE_ID ? config.port : (ports.get(nodeId) ?? (config.port === 0 ? 0 : config.port + nodeId - NODE_ID));
      boundPorts.set(nodeId, await listeners.start(nodeId, port));
    }
    const bound = { port: boundPorts.get(NODE_ID) ?? config.port };
    const metricsServer = config.metricsPort === undefined ? undefined : await serveMetrics(metrics.registry, config.host, config.metricsPort);
    if (metricsServer !== undefined) metrics.collectProcessMetrics();
    if (metricsServer !== undefined) closers.push(() => metricsServer.close());
    if (config.advertisedListener === undefined) context.advertised = { host: config.host, port: bound.port };
    const consoleServer =
      config.consolePort === undefined
        ? undefined
        : await serveConsole(context, { host: config.consoleHost ?? config.host, port: config.consolePort, startedAt: Date.now() });
    if (consoleServer !== undefined) closers.push(() => consoleServer.close());
    const metricsPort = metricsServer?.port;
    const bootstrap = formatHostPort(config.host, bound.port);
    const metricsNote = metricsPort === undefined ? '' : `, metrics on http://${formatHostPort(config.host, metricsPort)}/metrics`;
    const consoleNote = consoleServer === undefined ? '' : `, console on ${consoleServer.url}`;
    logger.info(
      { host: config.host, port: bound.port, dataDir, metricsPort, consolePort: consoleServer?.port },
      `listening on ${bootstrap}${metricsNote}${consoleNote}, data in ${dataDir}`,
    );
    let closing: Promise<void> | undefined;
    return {
      port: bound.port,
      ports: boundPorts,
      listeners,
      metricsPort,
      consolePort: consoleServer?.port,
      close() {
        closing ??= closeAll();
        return closing;
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

function guardedTable(table: ReadonlyMap<number, ApiHandler>): ReadonlyMap<number, ApiHandler> {
  return new Map([...table].map(([apiKey, handler]) => [apiKey, guarded(handler)]));
}

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
