/** The Overview view's data: the broker's version, uptime, listeners, data directory, sampled metrics, and a simulated cluster's nodes. */
import { createRequire } from 'node:module';
import type { BrokerContext } from '../broker/broker-context.js';
import type { TopicInfo } from '../log/storage.js';
import { formatHostPort } from '../server/host-port.js';
import type { MetricSamples } from './metric-samples.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

export interface ConsoleListener {
  readonly url: string;
}

export function overview(broker: BrokerContext, startedAt: number, samples: MetricSamples, console: ConsoleListener): unknown {
  const topics = broker.storage.topics();
  return {
    version,
    startedAt,
    uptimeMs: Date.now() - startedAt,
    clusterId: broker.clusterId,
    listeners: [
      {
        name: 'Kafka',
        address: formatHostPort(broker.advertised.host, broker.advertised.port),
        security: `${broker.sasl === undefined ? '' : 'SASL_'}${broker.config.tls === undefined ? 'PLAINTEXT' : 'SSL'}`,
      },
      { name: 'Console', address: console.url, security: broker.config.tls === undefined ? 'HTTP' : 'HTTPS' },
    ],
    dataDir: broker.config.dataDir,
    topics: topics.length,
    partitions: topics.reduce((sum, t) => sum + t.partitions, 0),
    groups: broker.groups.list().length,
    nodes: broker.cluster.simulated ? nodes(broker, topics) : undefined,
    samples: samples.samples,
  };
}

/** Each node of a simulated cluster: where it listens, whether it is live, and how many partitions it leads. */
function nodes(broker: BrokerContext, topics: readonly TopicInfo[]): unknown[] {
  const leads = new Map<number, number>();
  for (const t of topics)
    for (let i = 0; i < t.partitions; i++) {
      const { leader } = broker.cluster.partitionOf(t, i);
      leads.set(leader, (leads.get(leader) ?? 0) + 1);
    }
  return broker.cluster.nodeStates().map(({ nodeId, host, port, state }) => ({
    nodeId,
    address: formatHostPort(host, port),
    state,
    leads: leads.get(nodeId) ?? 0,
  }));
}
