/** DescribeConfigs: the settings in force for a topic (type 2) or this broker (type 4), by Kafka's names. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../../protocol/messages/describe-configs.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';
import { DEFAULT_CONFIG, NODE_ID, securityProtocol, type BrokerConfig } from '../config.js';
import { configEntries, DEFAULT_CONFIG_SOURCE, topicConfigEntries, type ConfigEntry } from '../topic-configs.js';
import { configResourceProblem, TOPIC_RESOURCE } from '../config-resources.js';
import { formatHostPort } from '../../server/host-port.js';

type Result = DescribeConfigsResponse['results'][number];

function brokerConfigs(c: BrokerConfig, advertised: BrokerContext['advertised']): Record<string, string> {
  return {
    'advertised.listeners': `${securityProtocol(c)}://${formatHostPort(advertised.host, advertised.port)}`,
    'auto.create.topics.enable': String(c.autoCreateTopics),
    'broker.id': String(NODE_ID),
    'connections.max.idle.ms': String(c.idleTimeoutMs),
    'default.replication.factor': '1',
    'log.dirs': c.dataDir,
    'log.message.timestamp.after.max.ms': String(c.messageTimestampAfterMaxMs),
    'log.retention.bytes': String(c.retentionBytes),
    'log.retention.check.interval.ms': String(c.retentionCheckIntervalMs),
    'log.retention.ms': String(c.retentionMs),
    'log.segment.bytes': String(c.segmentBytes),
    'max.connections': String(c.maxConnections),
    'num.partitions': String(c.partitions),
    'producer.id.expiration.ms': String(c.producerIdExpirationMs),
    'socket.request.max.bytes': String(c.maxRequestBytes),
  };
}

export const describeConfigs = defineApi({
  request: DescribeConfigsRequest,
  response: DescribeConfigsResponse,
  minVersion: 0,
  maxVersion: 4,
  handle(request, _info, broker): DescribeConfigsResponse {
    const results = request.resources.map((res): Result => {
      const result = (errorCode: number, errorMessage: string | null, configs: ConfigEntry[] = []): Result => ({
        errorCode,
        errorMessage,
        resourceType: res.resourceType,
        resourceName: res.resourceName,
        configs: configs
          .filter(({ name }) => res.configurationKeys === null || res.configurationKeys.includes(name))
          .map(({ name, value, configSource }) => ({
            name,
            value,
            // No AlterConfigs: nothing can be changed while brook runs.
            readOnly: true,
            isDefault: configSource === DEFAULT_CONFIG_SOURCE,
            configSource,
            isSensitive: false,
            synonyms: [],
            configType: 0,
            documentation: null,
          })),
      });
      const problem = configResourceProblem(res.resourceType, res.resourceName, broker.storage);
      if (problem !== undefined) return result(problem.errorCode, problem.errorMessage);
      if (res.resourceType === TOPIC_RESOURCE) return result(ErrorCode.NONE, null, topicConfigEntries(broker.config));
      return result(ErrorCode.NONE, null, configEntries(brokerConfigs(broker.config, broker.advertised), brokerConfigs(DEFAULT_CONFIG, broker.advertised)));
    });
    return { throttleTimeMs: 0, results };
  },
});
