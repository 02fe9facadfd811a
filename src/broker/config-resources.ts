/** The config resources brook has: a topic or this broker, by Kafka's resource type ids. */
import type { Storage } from '../log/storage.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { NODE_ID } from './config.js';
import { topicNameProblem } from '../log/topic-name.js';

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

/** An alteration of a resource brook has is refused as a policy would: topics and the broker keep the settings brook started with. */
const NOT_ALTERABLE: ResourceProblem = {
  errorCode: ErrorCode.POLICY_VIOLATION,
  errorMessage: 'brook does not alter configs yet: topics and the broker keep the settings brook was started with',
};

/** AlterConfigs' and IncrementalAlterConfigs' answer, per resource. */
export function refuseAlterations(
  resources: readonly { readonly resourceType: number; readonly resourceName: string }[],
  storage: Storage,
): (ResourceProblem & { resourceType: number; resourceName: string })[] {
  return resources.map(({ resourceType, resourceName }) => ({
    ...(configResourceProblem(resourceType, resourceName, storage) ?? NOT_ALTERABLE),
    resourceType,
    resourceName,
  }));
}
