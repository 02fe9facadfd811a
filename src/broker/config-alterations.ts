/**
 * AlterConfigs and IncrementalAlterConfigs, per resource: a topic's own configs are replaced
 * (AlterConfigs) or changed config by config (SET, DELETE, APPEND, SUBTRACT), checked as Kafka's
 * `ConfigAdminManager` and `ControllerConfigurationValidator` check them, then stored and applied to its partitions at once; validateOnly checks alone.
 * The broker's dynamic configs are altered likewise (alterBroker); its other settings are fixed
 * at start, and altering one is refused as Kafka's `DynamicBrokerConfig.validateConfigs` refuses a config it cannot update dynamically.
 */
import {
  isListConfig,
  listItems,
  TOPIC_CONFIGS,
  topicConfigProblem,
  topicConfigsProblem,
  topicConfigValue,
  type TopicConfigs,
} from '../settings/topic-configs.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { BrokerContext } from './broker-context.js';
import { configAccessProblem, configResourceProblem, TOPIC_RESOURCE, type ResourceProblem } from './config-resources.js';
import { AclOperation } from '../acl/acl-binding.js';
import type { ConnectionContext } from '../server/connection.js';
import { storageFailure } from './storage-error.js';
import { unexpectedError } from './unexpected-error.js';
import { dynamicValueProblem } from './dynamic-configs.js';
import { isDynamicBrokerConfig } from './topic-configs.js';

/** IncrementalAlterConfigs' operations; AlterConfigs' entries are each a SET. */
export const SET = 0;
const DELETE = 1;
const APPEND = 2;
const SUBTRACT = 3;

export interface Alteration {
  readonly name: string;
  readonly configOperation: number;
  readonly value: string | null;
}

export interface AlteredResource {
  readonly resourceType: number;
  readonly resourceName: string;
  /** AlterConfigs: the configs the resource is to have, all others removed; else changes to those it has. */
  readonly replace: boolean;
  readonly configs: readonly Alteration[];
}

export interface AlterationAnswer {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/** A config an alteration would leave with a value Kafka does not take (a list subtracted to nothing). */
class AlteredValueError extends Error {}

const key = (r: AlteredResource): string => `${r.resourceType}:${r.resourceName}`;

/** Alters each resource in turn; each answered with its own error, or none. As Kafka's `ConfigAdminManager.preprocess`, a resource named twice is refused each time. */
export async function alterResources(
  broker: BrokerContext,
  connection: ConnectionContext,
  resources: readonly AlteredResource[],
  validateOnly: boolean,
): Promise<AlterationAnswer[]> {
  const answers: AlterationAnswer[] = [];
  const times = new Map<string, number>();
  for (const r of resources) times.set(key(r), (times.get(key(r)) ?? 0) + 1);
  for (const resource of resources) {
    const twice = times.get(key(resource))! > 1;
    const problem = twice
      ? { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Each resource must appear at most once.' }
      : (configAccessProblem(resource.resourceType, resource.resourceName, AclOperation.ALTER_CONFIGS, connection, broker) ??
        (await alterResource(broker, resource, validateOnly)));
    answers.push({
      resourceType: resource.resourceType,
      resourceName: resource.resourceName,
      errorCode: problem?.errorCode ?? ErrorCode.NONE,
      errorMessage: problem?.errorMessage ?? null,
    });
  }
  return answers;
}

/** Kafka's error for the resource's alteration, or undefined once it is made. */
async function alterResource(broker: BrokerContext, resource: AlteredResource, validateOnly: boolean): Promise<ResourceProblem | undefined> {
  const { resourceType, resourceName, configs } = resource;
  const nulls = configs.filter((c) => c.configOperation !== DELETE && c.value === null).map((c) => c.name);
  if (nulls.length > 0) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Null value not supported for : ${nulls.join(', ')}` };
  const missing = configResourceProblem(resourceType, resourceName, broker.storage);
  if (missing !== undefined) return missing;
  if (new Set(configs.map((c) => c.name)).size !== configs.length)
    return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Error due to duplicate config keys' };
  if (resourceType !== TOPIC_RESOURCE) return alterBroker(broker, resource, validateOnly);
  for (const alteration of configs) {
    const problem = alterationProblem(alteration, TOPIC_CONFIGS.has(alteration.name) ? undefined : `Unknown topic config name: ${alteration.name}`);
    if (problem !== undefined) return problem;
  }
  const alter = (own: TopicConfigs): TopicConfigs => {
    const next = altered(own, resource, (name) => topicConfigValue(broker.config, own, TOPIC_CONFIGS.get(name)!) ?? '');
    for (const [name, value] of Object.entries(next)) {
      const problem = topicConfigProblem(name, value);
      if (problem !== undefined) throw new AlteredValueError(problem);
    }
    const conflict = topicConfigsProblem(broker.config, next);
    if (conflict !== undefined) throw new AlteredValueError(conflict);
    return next;
  };
  if (validateOnly) {
    const topic = broker.storage.topic(resourceName);
    try {
      if (topic !== undefined) alter(topic.configs);
    } catch (err) {
      if (err instanceof AlteredValueError) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: err.message };
      return {
        errorCode: unexpectedError(broker.logger, err, { topic: resourceName }, 'validating topic configs failed'),
        errorMessage: (err as Error).message,
      };
    }
    return undefined;
  }
  try {
    const info = await broker.storage.alterTopicConfigs(resourceName, alter);
    if (info === undefined) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `no topic '${resourceName}'` };
    broker.logger.info({ topic: resourceName, configs: info.configs }, 'topic configs altered');
  } catch (err) {
    if (err instanceof AlteredValueError) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: err.message };
    return { errorCode: storageFailure(broker.logger, err, { topic: resourceName }, 'altering topic configs failed'), errorMessage: (err as Error).message };
  }
  return undefined;
}

/**
 * Kafka's error for an alteration it would not make, whatever the resource has; undefined if it
 * would. `unknown` says why the name is not one the resource has.
 */
function alterationProblem({ name, configOperation, value }: Alteration, unknown: string | undefined): ResourceProblem | undefined {
  const invalid = (errorMessage: string): ResourceProblem => ({ errorCode: ErrorCode.INVALID_CONFIG, errorMessage });
  if (configOperation < SET || configOperation > SUBTRACT)
    return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown config operation ${configOperation} for config ${name}` };
  if (unknown !== undefined) return invalid(unknown);
  if (configOperation === DELETE || value === null) return undefined;
  if ((configOperation === APPEND || configOperation === SUBTRACT) && !isListConfig(name)) {
    return invalid(`Config value ${configOperation === APPEND ? 'append' : 'subtract'} is not allowed for config key: ${name}`);
  }
  const problem = TOPIC_CONFIGS.has(name) ? topicConfigProblem(name, value) : dynamicValueProblem(name, value);
  return problem === undefined ? undefined : invalid(problem);
}

/**
 * Alters the broker's dynamic configs, as Kafka's DynamicBrokerConfig does: only those Kafka
 * changes at run time (others are INVALID_REQUEST, as `ConfigAdminManager.validateBrokerConfigChange` refuses them); stored, then in force
 * at once for every topic without its own value.
 */
async function alterBroker(broker: BrokerContext, resource: AlteredResource, validateOnly: boolean): Promise<ResourceProblem | undefined> {
  const fixed = resource.configs.filter((c) => !isDynamicBrokerConfig(c.name)).map((c) => c.name);
  if (fixed.length > 0) {
    return {
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: `Invalid config value for resource ConfigResource(type=BROKER, name='${resource.resourceName}'): Cannot update these configs dynamically: Set(${fixed.join(', ')})`,
    };
  }
  for (const alteration of resource.configs) {
    const problem = alterationProblem(alteration, undefined);
    if (problem !== undefined) return problem;
  }
  const next = new Map(resource.replace ? [] : broker.dynamicConfigs.altered(resource.resourceName));
  for (const { name, configOperation, value } of resource.configs) {
    if (configOperation === DELETE) next.delete(name);
    else next.set(name, value!.trim());
  }
  if (validateOnly) return undefined;
  try {
    await broker.dynamicConfigs.replace(resource.resourceName, next);
  } catch (err) {
    return {
      errorCode: storageFailure(broker.logger, err, { broker: resource.resourceName }, 'altering broker configs failed'),
      errorMessage: (err as Error).message,
    };
  }
  broker.storage.setTopicDefaults(broker.config);
  broker.logger.info({ broker: resource.resourceName, configs: Object.fromEntries(next) }, 'dynamic broker configs altered');
  return undefined;
}

/** The topic's own configs after `resource`'s alterations (each checked); `current` is a config's value in force. */
function altered(own: TopicConfigs, resource: AlteredResource, current: (name: string) => string): TopicConfigs {
  const next = new Map(resource.replace ? [] : Object.entries(own));
  for (const { name, configOperation, value } of resource.configs) {
    if (configOperation === DELETE) {
      next.delete(name);
      continue;
    }
    const given = value!.trim();
    if (configOperation === SET) {
      next.set(name, given);
      continue;
    }
    const items = listItems(current(name)).filter((item) => item !== '');
    const changed = listItems(given);
    const list = configOperation === APPEND ? [...items, ...changed.filter((item) => !items.includes(item))] : items.filter((item) => !changed.includes(item));
    next.set(name, list.join(','));
  }
  return Object.fromEntries(next);
}
