/**
 * The feature levels (KIP-584) brook reports and keeps: metadata.version at Kafka 3.9's level
 * (3.9-IV0), which is all brook speaks, so it is both the only level supported and the one
 * finalized. Every other feature is off (level 0), which Kafka reports by leaving it out.
 */
export const FEATURE_LEVELS: ReadonlyMap<string, number> = new Map([['metadata.version', 21]]);

/** The finalized features' epoch: they never change. */
export const FINALIZED_FEATURES_EPOCH = 0n;

/** The level brook runs `feature` at: 0 for one it does not have. */
export function featureLevel(feature: string): number {
  return FEATURE_LEVELS.get(feature) ?? 0;
}
