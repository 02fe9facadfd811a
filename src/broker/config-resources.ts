/** The config resources brook has: a topic or this broker, by Kafka's resource type ids. */
import type { Storage } from '../log/storage.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { NODE_ID } from './config.js';
import { topicNameProblem } from '../log/topic-name.js';
import { CLUSTER_NAME, ResourceType } from '../acl/acl-binding.js';
import type { ConnectionContext } from '../server/connection.js';
import type { BrokerContext } from './broker-context.js';
import { mayDo } from './access.js';

export const TOPIC_RESOURCE = 2;
export const BROKER_RESOURCE = 4;

export interface ResourceProblem {
  readonly errorCode: number;
  readonly errorMessage: string;
}

/** Kafka's error for a resource brook does not have; undefined for an existing topic, or this broker ('' names the cluster default). */
export function configResourceProblem(resourceType: number, resourceName: string, storage: Storage): ResourceProblem | undefined {
  if (resourceType === TOPIC_RESOURCE) {
    const problem = topicNameProblem(resourceName);
    if (problem !== undefined) return { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, errorMessage: problem };
    if (storage.topic(resourceName) === undefined) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `no topic '${resourceName}'` };
    return undefined;
  }
  if (resourceType === BROKER_RESOURCE) {
    if (resourceName !== '' && resourceName !== String(NODE_ID)) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `no broker '${resourceName}'` };
    return undefined;
  }
  return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `resource type ${resourceType} is not supported` };
}

/** As Kafka's `KafkaApis.handleDescribeConfigsRequest` and `handleIncrementalAlterConfigsRequest`, before anything else: the topic's (or the cluster's, for the broker) DESCRIBE_CONFIGS or ALTER_CONFIGS, `operation`. */
export function configAccessProblem(
  resourceType: number,
  resourceName: string,
  operation: number,
  connection: ConnectionContext,
  broker: BrokerContext,
): ResourceProblem | undefined {
  if (resourceType === TOPIC_RESOURCE && !mayDo(connection, broker, ResourceType.TOPIC, resourceName, operation)) {
    return { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Authorization failed.' };
  }
  if (resourceType === BROKER_RESOURCE && !mayDo(connection, broker, ResourceType.CLUSTER, CLUSTER_NAME, operation)) {
    return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Authorization failed.' };
  }
  return undefined;
}
