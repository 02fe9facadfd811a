/**
 * Configs as DescribeConfigs and CreateTopics answer them, with where each value comes from (Kafka's
 * ConfigSource) and the synonyms that say so: a topic's own value (DYNAMIC_TOPIC_CONFIG), else the
 * broker config that is its default, altered at run time (DYNAMIC_BROKER_CONFIG,
 * DYNAMIC_DEFAULT_BROKER_CONFIG), given at start (STATIC_BROKER_CONFIG) or its default (DEFAULT_CONFIG).
 */
import { acceptedValues, brokerConfigName, defaultValue, TOPIC_CONFIGS, topicConfigValue, unitOf, type TopicConfigs } from '../settings/topic-configs.js';
import { ConfigSource, DYNAMIC_SETTINGS, type ConfigSynonym, type DynamicBrokerConfigs } from './dynamic-configs.js';
import { DEFAULT_CONFIG, OPTIONS } from '../settings/settings.js';

export interface ConfigEntry {
  readonly name: string;
  readonly value: string;
  readonly configSource: number;
  /** Where the value could come from, the one in force first (Kafka's includeSynonyms). */
  readonly synonyms: readonly ConfigSynonym[];
}

/** The settings that are Kafka broker configs, by those names. */
const BROKER_SETTINGS: ReadonlyMap<string, string> = new Map(OPTIONS.flatMap(([key, s]) => (s.broker === undefined ? [] : [[s.broker, key]])));

/**
 * The broker's configs, `values` by name: those of settings with their synonyms, others (which
 * brook fixes or works out as it runs) as the broker's static ones.
 */
export function brokerConfigEntries(dynamic: DynamicBrokerConfigs, values: Record<string, string>): ConfigEntry[] {
  return sorted(Object.entries(values)).map(([name, value]) => {
    const key = BROKER_SETTINGS.get(name);
    const synonyms = key === undefined ? [{ name, value, source: ConfigSource.STATIC_BROKER_CONFIG }] : dynamic.synonyms(name, key);
    return { name, value, configSource: synonyms[0]!.source, synonyms };
  });
}

/** Whether AlterConfigs may change the broker config at run time. */
export const isDynamicBrokerConfig = (name: string): boolean => DYNAMIC_SETTINGS.has(name);

/** A topic's configs: every one the broker has a default of, and those the topic has of its own. */
export function topicConfigEntries(dynamic: DynamicBrokerConfigs, own: TopicConfigs): ConfigEntry[] {
  return sorted([...TOPIC_CONFIGS]).flatMap(([name, row]) => {
    const value = topicConfigValue(dynamic.current, own, row);
    if (value === undefined) return [];
    const broker = brokerConfigName(row);
    const synonyms: ConfigSynonym[] = [];
    if (Object.hasOwn(own, name)) synonyms.push({ name, value, source: ConfigSource.DYNAMIC_TOPIC_CONFIG });
    if (row.setting !== undefined) synonyms.push(...dynamic.synonyms(broker!, row.setting));
    else if (broker !== undefined) synonyms.push({ name: broker, value: defaultValue(row, DEFAULT_CONFIG)!, source: ConfigSource.DEFAULT_CONFIG });
    // A config of the topic's own with no broker default is its own synonym alone.
    return [{ name, value, configSource: synonyms[0]?.source ?? ConfigSource.DYNAMIC_TOPIC_CONFIG, synonyms }];
  });
}

/** Every topic config as people read it (the console): its value in force, whether the topic's own, the broker's default, unit and accepted values. */
export function topicConfigsForPeople(dynamic: DynamicBrokerConfigs, own: TopicConfigs): unknown[] {
  const c = dynamic.current;
  return sorted([...TOPIC_CONFIGS]).map(([name, row]) => ({
    name,
    value: topicConfigValue(c, own, row) ?? null,
    own: Object.hasOwn(own, name),
    default: topicConfigValue(c, {}, row) ?? null,
    unit: unitOf(row) ?? null,
    accepts: acceptedValues(row),
  }));
}

function sorted<T>(entries: [string, T][]): [string, T][] {
  return entries.sort(([a], [b]) => (a < b ? -1 : 1));
}
