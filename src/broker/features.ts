/**
 * The feature levels (KIP-584) brook reports and keeps: metadata.version at Kafka 3.9's level
 * (3.9-IV0), both the only level supported and the one finalized; transaction.version 2
 * (KIP-890 part 2: the epoch bumped at every commit and abort, EndTxn v5), finalized, with the
 * levels below it supported, as clients that end transactions with EndTxn v4 or older are still
 * served as under level 0 or 1. Every other feature is off (level 0), which Kafka reports by
 * leaving it out.
 */
export interface FeatureLevel {
  readonly minSupported: number;
  readonly maxSupported: number;
  readonly finalized: number;
}

export const FEATURE_LEVELS: ReadonlyMap<string, FeatureLevel> = new Map([
  ['metadata.version', { minSupported: 21, maxSupported: 21, finalized: 21 }],
  ['transaction.version', { minSupported: 0, maxSupported: 2, finalized: 2 }],
]);

/** The finalized features' epoch: they never change. */
export const FINALIZED_FEATURES_EPOCH = 0n;

/** The level brook runs `feature` at: 0 for one it does not have. */
export function featureLevel(feature: string): number {
  return FEATURE_LEVELS.get(feature)?.finalized ?? 0;
}
