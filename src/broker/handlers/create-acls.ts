/**
 * CreateAcls: each valid binding is added (one already there is left as it is), stored before the
 * answer; an invalid one is INVALID_REQUEST. Without an authorizer, SECURITY_DISABLED, as Kafka's `AclApis`.
 */
import { bindingProblem } from '../../acl/acl-filter.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { CreateAclsRequest, CreateAclsResponse } from '../../protocol/messages/create-acls.js';
import { defineApi } from '../api-handler.js';
import { bindingOf, NO_AUTHORIZER } from '../acl-wire.js';

export const createAcls = defineApi({
  request: CreateAclsRequest,
  response: CreateAclsResponse,
  minVersion: 0,
  maxVersion: 3,
  async handle(request, _info, broker): Promise<CreateAclsResponse> {
    const { authorizer } = broker;
    if (authorizer === undefined) return { throttleTimeMs: 0, results: request.creations.map(() => NO_AUTHORIZER) };
    const bindings = request.creations.map(bindingOf);
    const problems = bindings.map(bindingProblem);
    await authorizer.create(bindings.filter((_, i) => problems[i] === undefined));
    const results = problems.map((problem) =>
      problem === undefined ? { errorCode: ErrorCode.NONE, errorMessage: null } : { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: problem },
    );
    return { throttleTimeMs: 0, results };
  },
});
