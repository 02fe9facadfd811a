/**
 * Topic configs as DescribeConfigs and CreateTopics answer them: a topic's own value
 * (DYNAMIC_TOPIC_CONFIG), else the broker setting that is its default (STATIC_BROKER_CONFIG when
 * the broker was given it, DEFAULT_CONFIG otherwise), and the synonyms that say so.
 */
import type { TopicConfigs } from '../log/topic-config.js';
import { DEFAULT_CONFIG, TOPIC_CONFIG_SETTINGS, topicConfigDefaults, type BrokerConfig } from '../settings/settings.js';

/** Kafka's ConfigSource values. */
const DYNAMIC_TOPIC_CONFIG = 1;
const STATIC_BROKER_CONFIG = 4;
export const DEFAULT_CONFIG_SOURCE = 5;

/** The configs brook fixes for every topic unless it has its own, with the broker config Kafka names as their default. */
const FIXED: Readonly<Record<string, { readonly value: string; readonly broker: string }>> = {
  'cleanup.policy': { value: 'delete', broker: 'log.cleanup.policy' },
  'compression.type': { value: 'producer', broker: 'compression.type' },
  'min.insync.replicas': { value: '1', broker: 'min.insync.replicas' },
};

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

/** Worked out once per broker config: produce looks values up for every batch. */
const defaultsOf = new WeakMap<BrokerConfig, Readonly<Record<string, string>>>();

/** The broker's defaults of topic configs, by the topic config's name. */
function brokerDefaults(c: BrokerConfig): Readonly<Record<string, string>> {
  let defaults = defaultsOf.get(c);
  if (defaults === undefined) {
    defaults = { ...Object.fromEntries(Object.entries(FIXED).map(([name, f]) => [name, f.value])), ...topicConfigDefaults(c) };
    defaultsOf.set(c, defaults);
  }
  return defaults;
}

/** The value in force of a topic config the broker has a default of: the topic's own, or that default. */
export function topicConfigValue(c: BrokerConfig, own: TopicConfigs, name: string): string {
  return own[name] ?? brokerDefaults(c)[name] ?? '';
}

/** A topic's configs: every one the broker has a default of, and those the topic has of its own. */
export function topicConfigEntries(c: BrokerConfig, own: TopicConfigs): ConfigEntry[] {
  const given = brokerDefaults(c);
  const defaults = brokerDefaults(DEFAULT_CONFIG);
  return sorted(Object.entries({ ...given, ...own })).map(([name, value]) => {
    const broker = TOPIC_CONFIG_SETTINGS.get(name)?.broker ?? FIXED[name]?.broker;
    const synonyms: ConfigSynonym[] = [];
    if (own[name] !== undefined) synonyms.push({ name, value: own[name], source: DYNAMIC_TOPIC_CONFIG });
    if (broker !== undefined && given[name] !== defaults[name]) synonyms.push({ name: broker, value: given[name]!, source: STATIC_BROKER_CONFIG });
    if (broker !== undefined) synonyms.push({ name: broker, value: defaults[name]!, source: DEFAULT_CONFIG_SOURCE });
    // A config of the topic's own with no broker default is its own synonym alone.
    return { name, value, configSource: synonyms[0]?.source ?? DYNAMIC_TOPIC_CONFIG, synonyms };
  });
}

function sorted<T>(entries: [string, T][]): [string, T][] {
  return entries.sort(([a], [b]) => (a < b ? -1 : 1));
}
