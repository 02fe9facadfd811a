/**
 * Topic configs as DescribeConfigs and CreateTopics answer them: a topic's own value
 * (DYNAMIC_TOPIC_CONFIG), else the broker setting that is its default (STATIC_BROKER_CONFIG when
 * the broker was given it, DEFAULT_CONFIG otherwise), and the synonyms that say so.
 */
import { DEFAULT_CONFIG, type BrokerConfig } from '../settings/settings.js';
import { brokerConfigName, defaultValue, TOPIC_CONFIGS, topicConfigValue, type TopicConfigs } from '../settings/topic-configs.js';

/** Kafka's ConfigSource values. */
const DYNAMIC_TOPIC_CONFIG = 1;
const STATIC_BROKER_CONFIG = 4;
export const DEFAULT_CONFIG_SOURCE = 5;

export interface ConfigSynonym {
  readonly name: string;
  readonly value: string;
  readonly source: number;
}

export interface ConfigEntry {
  readonly name: string;
  readonly value: string;
  readonly configSource: number;
  /** Where the value could come from, the one in force first (Kafka's includeSynonyms). */
  readonly synonyms: readonly ConfigSynonym[];
}

/** Each config, by name, with where its value comes from: a setting the broker was given, or its default. */
export function configEntries(values: Record<string, string>, defaults: Record<string, string>): ConfigEntry[] {
  return sorted(Object.entries(values)).map(([name, value]) => {
    const configSource = value === defaults[name] ? DEFAULT_CONFIG_SOURCE : STATIC_BROKER_CONFIG;
    return { name, value, configSource, synonyms: [{ name, value, source: configSource }] };
  });
}

/** A topic's configs: every one the broker has a default of, and those the topic has of its own. */
export function topicConfigEntries(c: BrokerConfig, own: TopicConfigs): ConfigEntry[] {
  return sorted([...TOPIC_CONFIGS]).flatMap(([name, row]) => {
    const value = topicConfigValue(c, own, row);
    if (value === undefined) return [];
    const given = defaultValue(row, c);
    const defaults = defaultValue(row, DEFAULT_CONFIG);
    const broker = brokerConfigName(row);
    const synonyms: ConfigSynonym[] = [];
    if (Object.hasOwn(own, name)) synonyms.push({ name, value, source: DYNAMIC_TOPIC_CONFIG });
    if (broker !== undefined && given !== defaults) synonyms.push({ name: broker, value: given!, source: STATIC_BROKER_CONFIG });
    if (broker !== undefined) synonyms.push({ name: broker, value: defaults!, source: DEFAULT_CONFIG_SOURCE });
    // A config of the topic's own with no broker default is its own synonym alone.
    return [{ name, value, configSource: synonyms[0]?.source ?? DYNAMIC_TOPIC_CONFIG, synonyms }];
  });
}

function sorted<T>(entries: [string, T][]): [string, T][] {
  return entries.sort(([a], [b]) => (a < b ? -1 : 1));
}
