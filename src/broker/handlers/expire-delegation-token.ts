/** ExpireDelegationToken: no delegation tokens; answered as Kafka's `KafkaApis.handleExpireTokenRequest` answers with them off (see delegation-tokens.ts). */
import { ExpireDelegationTokenRequest, ExpireDelegationTokenResponse } from '../../protocol/messages/expire-delegation-token.js';
import { defineApi } from '../api-handler.js';
import { tokenChangeRefused } from '../delegation-tokens.js';

export const expireDelegationToken = defineApi({
  request: ExpireDelegationTokenRequest,
  response: ExpireDelegationTokenResponse,
  minVersion: 0,
  maxVersion: 2,
  featureOff: true,
  handle(_request, info, broker): ExpireDelegationTokenResponse {
    return tokenChangeRefused(info.connection, broker);
  },
});
