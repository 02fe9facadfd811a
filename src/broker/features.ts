/**
 * The feature levels (KIP-584) brook reports and keeps, per Kafka release it answers as
 * (`--kafka-version`): the levels a new cluster of that release finalizes, as Kafka's
 * MetadataVersion.LATEST_PRODUCTION and the feature versions bootstrapped from it. brook
 * supports each feature only at that level (metadata.version), or from 0 up to it
 * (transaction.version: clients ending transactions with EndTxn v4 or older are still served as
 * under level 0 or 1). A feature at level 0 is off, which Kafka reports by leaving it out.
 */
import type { KafkaVersion } from '../protocol/kafka-releases.js';

export interface FeatureLevel {
  readonly minSupported: number;
  readonly maxSupported: number;
  readonly finalized: number;
}

export type FeatureLevels = ReadonlyMap<string, FeatureLevel>;

/** metadata.version: 3.9-IV0, 4.0-IV3, 4.1-IV1, 4.2-IV1, 4.3-IV0. */
const METADATA_VERSION: Readonly<Record<KafkaVersion, number>> = { '3.9': 21, '4.0': 25, '4.1': 27, '4.2': 29, '4.3': 30 };

/** transaction.version: 3.9 has no production level above 0; 4.0 on finalize 2 (KIP-890 part 2). */
const TRANSACTION_VERSION: Readonly<Record<KafkaVersion, number>> = { '3.9': 0, '4.0': 2, '4.1': 2, '4.2': 2, '4.3': 2 };

/** group.version (KIP-848's consumer groups): Kafka 4.0 on finalize 1. */
const GROUP_VERSION: Readonly<Record<KafkaVersion, number>> = {
  '3.9': 0,
  '4.0': 1,
  '4.1': 1,
  '4.2': 1,
  '4.3': 1,
};

/** The levels a new cluster of `version` finalizes. */
export function featureLevels(version: KafkaVersion): FeatureLevels {
  const metadata = METADATA_VERSION[version];
  const levels: [string, FeatureLevel][] = [['metadata.version', { minSupported: metadata, maxSupported: metadata, finalized: metadata }]];
  const upTo = (feature: string, level: number): void => {
    if (level > 0) levels.push([feature, { minSupported: 0, maxSupported: level, finalized: level }]);
  };
  upTo('transaction.version', TRANSACTION_VERSION[version]);
  upTo('group.version', GROUP_VERSION[version]);
  return new Map(levels);
}

/** The finalized features' epoch: they never change. */
export const FINALIZED_FEATURES_EPOCH = 0n;

/** The level brook runs `feature` at: 0 for one it does not have. */
export function featureLevel(levels: FeatureLevels, feature: string): number {
  return levels.get(feature)?.finalized ?? 0;
}
