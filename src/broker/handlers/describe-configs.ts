/** DescribeConfigs: the configs in force for a topic (type 2) or this broker (type 4), by Kafka's names, with their synonyms if asked. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../../protocol/messages/describe-configs.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';
import { NODE_ID, securityProtocol } from '../config.js';
import { brokerConfigValues, type BrokerConfig } from '../../settings/settings.js';
import { ConfigSource } from '../dynamic-configs.js';
import { brokerConfigEntries, isDynamicBrokerConfig, topicConfigEntries, type ConfigEntry } from '../topic-configs.js';
import { configAccessProblem, configResourceProblem, TOPIC_RESOURCE } from '../config-resources.js';
import { AclOperation } from '../../acl/acl-binding.js';
import { formatHostPort } from '../../server/host-port.js';

type Result = DescribeConfigsResponse['results'][number];

/** The broker's configs: its settings', and those brook fixes or works out as it runs. */
function brokerConfigs(c: BrokerConfig, advertised: BrokerContext['advertised']): Record<string, string> {
  return {
    'advertised.listeners': `${securityProtocol(c)}://${formatHostPort(advertised.host, advertised.port)}`,
    'broker.id': String(NODE_ID),
    'default.replication.factor': '1',
    ...brokerConfigValues(c),
  };
}

export const describeConfigs = defineApi({
  request: DescribeConfigsRequest,
  response: DescribeConfigsResponse,
  minVersion: 0,
  maxVersion: 4,
  handle(request, info, broker): DescribeConfigsResponse {
    const results = request.resources.map((res): Result => {
      const result = (errorCode: number, errorMessage: string | null, configs: ConfigEntry[] = []): Result => ({
        errorCode,
        errorMessage,
        resourceType: res.resourceType,
        resourceName: res.resourceName,
        configs: configs
          .filter(({ name }) => res.configurationKeys === null || res.configurationKeys.includes(name))
          .map(({ name, value, configSource, synonyms }) => ({
            name,
            value,
            // Topic configs are altered at run time, and the broker's dynamic ones; its other settings are fixed at start.
            readOnly: res.resourceType !== TOPIC_RESOURCE && !isDynamicBrokerConfig(name),
            isDefault: configSource === ConfigSource.DEFAULT_CONFIG,
            configSource,
            isSensitive: false,
            synonyms: request.includeSynonyms ? [...synonyms] : [],
            configType: 0,
            documentation: null,
          })),
      });
      const problem =
        configAccessProblem(res.resourceType, res.resourceName, AclOperation.DESCRIBE_CONFIGS, info.connection, broker) ??
        configResourceProblem(res.resourceType, res.resourceName, broker.storage);
      if (problem !== undefined) return result(problem.errorCode, problem.errorMessage);
      const topic = res.resourceType === TOPIC_RESOURCE ? broker.storage.topic(res.resourceName) : undefined;
      if (topic !== undefined) return result(ErrorCode.NONE, null, topicConfigEntries(broker.dynamicConfigs, topic.configs));
      return result(ErrorCode.NONE, null, brokerConfigEntries(broker.dynamicConfigs, brokerConfigs(broker.config, broker.advertised)));
    });
    return { throttleTimeMs: 0, results };
  },
});
