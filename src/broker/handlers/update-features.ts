/**
 * UpdateFeatures, by the checks of Kafka's controller: brook supports each feature only at the
 * level it runs it at (see features.ts), so an update to that level changes nothing and any
 * other is INVALID_UPDATE_VERSION, in Kafka's words. Kafka 3.9's controller answers each feature;
 * from 4.0 (`QuorumController.updateFeatures`) one refused feature refuses the whole request, as
 * its own error, and from v2 a request taken answers no feature (KIP-1022).
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { UpdateFeaturesRequest, UpdateFeaturesResponse } from '../../protocol/messages/update-features.js';
import { defineApi } from '../api-handler.js';
import { NODE_ID } from '../config.js';
import { featureLevel, featureLevels, type FeatureLevels } from '../features.js';

/** Kafka's FeatureUpdate.UpgradeType codes. */
const UPGRADE = 1;
const SAFE_DOWNGRADE = 2;
const UNSAFE_DOWNGRADE = 3;

/** The one release whose controller answers each feature of a request on its own. */
const PER_FEATURE_RELEASE = '3.9';

export const updateFeatures = defineApi({
  request: UpdateFeaturesRequest,
  response: UpdateFeaturesResponse,
  minVersion: 0,
  maxVersion: 2,
  handle(request, info, broker): UpdateFeaturesResponse {
    const { kafkaVersion } = broker.config;
    const levels = featureLevels(kafkaVersion);
    const results = request.featureUpdates.map(({ feature, maxVersionLevel, allowDowngrade, upgradeType }) => {
      // v0 says whether a downgrade is allowed; v1 names the kind of change.
      const type = info.apiVersion === 0 ? (allowDowngrade ? SAFE_DOWNGRADE : UPGRADE) : upgradeType;
      const problem = updateProblem(levels, feature, maxVersionLevel, type);
      return problem === undefined
        ? { feature, errorCode: ErrorCode.NONE, errorMessage: null }
        : {
            feature,
            errorCode: ErrorCode.INVALID_UPDATE_VERSION,
            errorMessage: `Invalid update version ${maxVersionLevel} for feature ${feature}. ${problem}`,
          };
    });
    const wholeRequest = info.apiVersion >= 2 || kafkaVersion !== PER_FEATURE_RELEASE;
    if (!wholeRequest) return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, results };
    const refused = results.find((r) => r.errorCode !== ErrorCode.NONE);
    if (refused !== undefined) {
      const errorMessage = `The update failed for all features since the following feature had an error: ${refused.errorMessage}`;
      return { throttleTimeMs: 0, errorCode: refused.errorCode, errorMessage, results: [] };
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, results: info.apiVersion >= 2 ? [] : results };
  },
});

function updateProblem(levels: FeatureLevels, feature: string, level: number, type: number): string | undefined {
  if (![UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE].includes(type)) return 'The controller does not support the given upgrade type.';
  if (level < 0) return 'A feature version cannot be less than 0.';
  const current = featureLevel(levels, feature);
  if (level !== current)
    return current === 0 ? `Local controller ${NODE_ID} does not support this feature.` : `Local controller ${NODE_ID} only supports versions ${current}`;
  return undefined;
}
