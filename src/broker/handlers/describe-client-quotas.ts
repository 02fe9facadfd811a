/**
 * DescribeClientQuotas: brook enforces no quotas and stores none, so a valid filter matches
 * nothing; a filter Kafka refuses (`ClientQuotaCache.describeClientQuotas`) is refused with its error.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeClientQuotasRequest, DescribeClientQuotasResponse } from '../../protocol/messages/describe-client-quotas.js';
import { defineApi } from '../api-handler.js';

const ENTITY_TYPES = ['user', 'client-id', 'ip'];
/** Kafka's match types. */
const EXACT = 0;
const DEFAULT = 1;
const SPECIFIED = 2;

export const describeClientQuotas = defineApi({
  request: DescribeClientQuotasRequest,
  response: DescribeClientQuotasResponse,
  minVersion: 0,
  maxVersion: 1,
  featureOff: true,
  handle(request): DescribeClientQuotasResponse {
    const problem = filterProblem(request.components);
    if (problem !== undefined) return { throttleTimeMs: 0, errorCode: problem[0], errorMessage: problem[1], entries: null };
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, entries: [] };
  },
});

/** Kafka's checks of the filter, with its errors. */
function filterProblem(components: DescribeClientQuotasRequest['components']): [number, string] | undefined {
  const seen = new Set<string>();
  for (const { entityType, matchType, match } of components) {
    if (entityType === '') return [ErrorCode.INVALID_REQUEST, 'Invalid empty entity type.'];
    if (seen.has(entityType)) return [ErrorCode.INVALID_REQUEST, `Entity type ${entityType} cannot appear more than once in the filter.`];
    seen.add(entityType);
    if (!ENTITY_TYPES.includes(entityType)) return [ErrorCode.UNSUPPORTED_VERSION, `Unsupported entity type ${entityType}`];
    if (matchType === EXACT && match === null) return [ErrorCode.INVALID_REQUEST, 'Request specified MATCH_TYPE_EXACT, but set match string to null.'];
    if (matchType === DEFAULT && match !== null) return [ErrorCode.INVALID_REQUEST, 'Request specified MATCH_TYPE_DEFAULT, but also specified a match string.'];
    if (matchType === SPECIFIED && match !== null)
      return [ErrorCode.INVALID_REQUEST, 'Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.'];
    if (![EXACT, DEFAULT, SPECIFIED].includes(matchType)) return [ErrorCode.INVALID_REQUEST, `Unknown match type ${matchType}`];
  }
  if (seen.has('ip') && (seen.has('user') || seen.has('client-id'))) {
    return [
      ErrorCode.INVALID_REQUEST,
      'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
    ];
  }
  return undefined;
}
