/** RenewDelegationToken: no delegation tokens; answered as Kafka's `KafkaApis.handleRenewTokenRequest` answers with them off (see delegation-tokens.ts). */
import { RenewDelegationTokenRequest, RenewDelegationTokenResponse } from '../../protocol/messages/renew-delegation-token.js';
import { defineApi } from '../api-handler.js';
import { tokenChangeRefused } from '../delegation-tokens.js';

export const renewDelegationToken = defineApi({
  request: RenewDelegationTokenRequest,
  response: RenewDelegationTokenResponse,
  minVersion: 0,
  maxVersion: 2,
  featureOff: true,
  handle(_request, info, broker): RenewDelegationTokenResponse {
    return tokenChangeRefused(info.connection, broker);
  },
});
