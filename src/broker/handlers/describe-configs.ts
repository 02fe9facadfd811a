/** DescribeConfigs: the settings in force for a topic (type 2) or this broker (type 4), by Kafka's names. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../../protocol/messages/describe-configs.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';
import { NODE_ID } from '../config.js';

const TOPIC = 2;
const BROKER = 4;
/** Kafka's ConfigSource values. */
const STATIC_BROKER_CONFIG = 4;
const DEFAULT_CONFIG = 5;

type Result = DescribeConfigsResponse['results'][number];

function topicConfigs(broker: BrokerContext): Record<string, string> {
  const c = broker.config;
  return {
    'cleanup.policy': 'delete',
    'compression.type': 'producer',
    'max.message.bytes': String(c.maxRequestBytes),
    'message.timestamp.after.max.ms': String(c.messageTimestampAfterMaxMs),
    'message.timestamp.type': 'CreateTime',
    'min.insync.replicas': '1',
    'retention.bytes': String(c.retentionBytes),
    'retention.ms': String(c.retentionMs),
    'segment.bytes': String(c.segmentBytes),
    'segment.ms': String(c.segmentMs),
  };
}

function brokerConfigs(broker: BrokerContext): Record<string, string> {
  const c = broker.config;
  return {
    'advertised.listeners': `PLAINTEXT://${broker.advertised.host}:${broker.advertised.port}`,
    'auto.create.topics.enable': String(c.autoCreateTopics),
    'broker.id': String(NODE_ID),
    'connections.max.idle.ms': String(c.idleTimeoutMs),
    'default.replication.factor': '1',
    'log.dirs': c.dataDir,
    'log.message.timestamp.after.max.ms': String(c.messageTimestampAfterMaxMs),
    'log.retention.bytes': String(c.retentionBytes),
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
      const result = (errorCode: number, errorMessage: string | null, configs: Record<string, string>): Result => ({
        errorCode,
        errorMessage,
        resourceType: res.resourceType,
        resourceName: res.resourceName,
        configs: Object.entries(configs)
          .filter(([name]) => res.configurationKeys === null || res.configurationKeys.includes(name))
          .map(([name, value]) => ({
            name,
            value,
            readOnly: true,
            isDefault: res.resourceType === TOPIC,
            configSource: res.resourceType === TOPIC ? DEFAULT_CONFIG : STATIC_BROKER_CONFIG,
            isSensitive: false,
            synonyms: [],
            configType: 0,
            documentation: null,
          })),
      });
      if (res.resourceType === TOPIC) {
        if (broker.storage.topic(res.resourceName) === undefined) return result(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `no topic '${res.resourceName}'`, {});
        return result(ErrorCode.NONE, null, topicConfigs(broker));
      }
      if (res.resourceType === BROKER) {
        if (res.resourceName !== '' && res.resourceName !== String(NODE_ID)) return result(ErrorCode.INVALID_REQUEST, `no broker '${res.resourceName}'`, {});
        return result(ErrorCode.NONE, null, brokerConfigs(broker));
      }
      return result(ErrorCode.INVALID_REQUEST, `resource type ${res.resourceType} is not supported`, {});
    });
    return { throttleTimeMs: 0, results };
  },
});
