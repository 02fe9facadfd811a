/**
 * Dynamic broker configs, as Kafka's DynamicBrokerConfig keeps them: the settings marked `dynamic`
 * that AlterConfigs and IncrementalAlterConfigs changed on the broker resource, for this broker
 * (resource name "1") or as the cluster's default (""), kept in broker-configs.json in the data
 * directory. A value for this broker comes before the cluster's default, which comes before the
 * setting the broker was started with.
 */
import { join } from 'node:path';
import { DurableJsonFile, isJsonObject, isVersion1 } from '../files/durable-file.js';
import { DEFAULT_CONFIG, OPTIONS, type BrokerConfig, type Setting } from '../settings/settings.js';

/** Kafka's ConfigSource values. */
export const ConfigSource = {
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
} as const;

export interface ConfigSynonym {
  readonly name: string;
  readonly value: string;
  readonly source: number;
}

/** The settings Kafka changes at run time, by their Kafka broker config names. */
export const DYNAMIC_SETTINGS: ReadonlyMap<string, readonly [key: string, setting: Setting]> = new Map(
  OPTIONS.flatMap(([key, s]) => (s.dynamic && s.broker !== undefined ? [[s.broker, [key, s] as const]] : [])),
);

/** Config name to value, as altered. */
type Layer = Readonly<Record<string, string>>;

interface Stored {
  readonly version: 1;
  /** For this broker. */
  readonly broker: Layer;
  /** The cluster's default. */
  readonly cluster: Layer;
}

const isLayer = (value: unknown): value is Layer => isJsonObject(value) && Object.values(value).every((v) => typeof v === 'string');
const isStored = (value: unknown): value is Stored => isVersion1(value) && isLayer(value.broker) && isLayer(value.cluster);

/** Why `value` cannot be the dynamic config `name`, in Kafka's words; undefined if it can. */
export function dynamicValueProblem(name: string, value: string): string | undefined {
  const kind = DYNAMIC_SETTINGS.get(name)?.[1].kind;
  if (kind?.parse === undefined) return `Cannot update these configs dynamically: Set(${name})`;
  try {
    // A flag's choices are checked by commander, not by parse: fits checks them here.
    if (kind.fits(kind.parse(value))) return undefined;
    return `Invalid value ${value} for configuration ${name}: Value must be ${kind.said}`;
  } catch (err) {
    return `Invalid value ${value} for configuration ${name}: ${(err as Error).message}`;
  }
}

export class DynamicBrokerConfigs {
  private stored: Stored;
  private effective: BrokerConfig;

  private constructor(
    private readonly file: DurableJsonFile<Stored>,
    /** The settings the broker was started with. */
    private readonly started: BrokerConfig,
    stored: Stored,
  ) {
    this.stored = stored;
    this.effective = this.applied();
  }

  /** Reads the configs altered before; a value no longer valid is left out. */
  static async open(dataDir: string, started: BrokerConfig): Promise<DynamicBrokerConfigs> {
    const file = new DurableJsonFile(join(dataDir, 'broker-configs.json'), isStored);
    const stored = (await file.read()) ?? { version: 1, broker: {}, cluster: {} };
    return new DynamicBrokerConfigs(file, started, stored);
  }

  /** The settings in force: those started with, under the altered ones. Replaced whole by a change. */
  get current(): BrokerConfig {
    return this.effective;
  }

  /** The configs altered on the resource: this broker's, or ('') the cluster's default. */
  altered(resourceName: string): ReadonlyMap<string, string> {
    return new Map(Object.entries(resourceName === '' ? this.stored.cluster : this.stored.broker));
  }

  /** Stores `configs` as the resource's altered ones, then puts them in force. */
  async replace(resourceName: string, configs: ReadonlyMap<string, string>): Promise<void> {
    const layer = Object.fromEntries(configs);
    const next: Stored = resourceName === '' ? { ...this.stored, cluster: layer } : { ...this.stored, broker: layer };
    await this.file.write(next);
    this.stored = next;
    this.effective = this.applied();
  }

  /** Where the broker config's value may come from, the one in force first (Kafka's synonyms). */
  synonyms(brokerName: string, key: string): ConfigSynonym[] {
    const values = (c: BrokerConfig): string => String((c as Readonly<Record<string, unknown>>)[key]);
    const synonyms: ConfigSynonym[] = [];
    const own = (layer: Layer, source: number): void => {
      if (Object.hasOwn(layer, brokerName)) synonyms.push({ name: brokerName, value: layer[brokerName]!, source });
    };
    own(this.stored.broker, ConfigSource.DYNAMIC_BROKER_CONFIG);
    own(this.stored.cluster, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
    if (values(this.started) !== values(DEFAULT_CONFIG))
      synonyms.push({ name: brokerName, value: values(this.started), source: ConfigSource.STATIC_BROKER_CONFIG });
    synonyms.push({ name: brokerName, value: values(DEFAULT_CONFIG), source: ConfigSource.DEFAULT_CONFIG });
    return synonyms;
  }

  private applied(): BrokerConfig {
    const changed = [this.stored.cluster, this.stored.broker].flatMap((layer) =>
      Object.entries(layer).flatMap(([name, value]) => {
        const found = DYNAMIC_SETTINGS.get(name);
        if (found === undefined || dynamicValueProblem(name, value) !== undefined) return [];
        return [[found[0], found[1].kind.parse!(value)] as const];
      }),
    );
    return { ...this.started, ...Object.fromEntries(changed) };
  }
}
