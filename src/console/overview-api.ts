/** The Overview view's data: the broker's version, uptime, listeners, data directory and sampled metrics. */
import { createRequire } from 'node:module';
import type { BrokerContext } from '../broker/broker-context.js';
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
    samples: samples.samples,
  };
}
