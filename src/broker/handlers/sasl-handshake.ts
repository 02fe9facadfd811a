/**
 * SaslHandshake: the client names its mechanism. After v1 the tokens travel in SaslAuthenticate;
 * after v0 they come as bare size-prefixed frames (librdkafka's feature checks need v0 offered,
 * and kafka-python uses it).
 */
import { SASL_MECHANISMS } from '../../auth/sasl-session.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { SaslHandshakeRequest, SaslHandshakeResponse } from '../../protocol/messages/sasl-handshake.js';
import { defineApi } from '../api-handler.js';
import type { SaslGate } from '../sasl-gate.js';

export function saslHandshake(gate: SaslGate) {
  return defineApi({
    request: SaslHandshakeRequest,
    response: SaslHandshakeResponse,
    minVersion: 0,
    maxVersion: 1,
    handle(request, info): SaslHandshakeResponse {
      const session = gate.session(info.connection);
      if (session.handshakeDone) {
        info.connection.end();
        return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [...SASL_MECHANISMS] };
      }
      const errorCode = session.handshake(request.mechanism, info.apiVersion === 0) ? ErrorCode.NONE : ErrorCode.UNSUPPORTED_SASL_MECHANISM;
      return { errorCode, mechanisms: [...SASL_MECHANISMS] };
    },
  });
}

/** On a listener without SASL, Kafka (`KafkaApis.handleSaslHandshakeRequest`) answers a handshake ILLEGAL_SASL_STATE and goes on. */
export const saslHandshakeWithoutSasl = defineApi({
  request: SaslHandshakeRequest,
  response: SaslHandshakeResponse,
  minVersion: 0,
  maxVersion: 1,
  withoutSasl: true,
  handle: (): SaslHandshakeResponse => ({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] }),
});
