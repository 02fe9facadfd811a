/**
 * AlterUserScramCredentials: upserts and deletes users of the SASL users file, stored before
 * the answer and used from the next authentication. Without the file brook has no SCRAM to
 * manage: each alteration Kafka would take is UNSUPPORTED_VERSION, as Kafka's
 * `ControllerApis.handleAlterUserScramCredentials` answers when its metadata version has no SCRAM.
 */
import { alterationResults, checkAlterations } from '../../auth/credential-store.js';
import { AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse } from '../../protocol/messages/alter-user-scram-credentials.js';
import { defineApi } from '../api-handler.js';

const WITHOUT_SCRAM = 'SCRAM is not enabled: brook runs without a SASL users file, so there are no credentials to alter';

export const alterUserScramCredentials = defineApi({
  request: AlterUserScramCredentialsRequest,
  response: AlterUserScramCredentialsResponse,
  minVersion: 0,
  maxVersion: 0,
  async handle(request, _info, broker): Promise<AlterUserScramCredentialsResponse> {
    const results =
      broker.credentials === undefined ? alterationResults(checkAlterations(request, () => false, WITHOUT_SCRAM)) : await broker.credentials.alter(request);
    return { throttleTimeMs: 0, results };
  },
});
