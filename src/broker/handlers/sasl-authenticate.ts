/**
 * SaslAuthenticate: one step of the chosen mechanism. A failure ends the connection at once, so
 * that nothing sent behind it is handled (no guess more, no request unauthenticated), and is
 * answered after a delay, before the connection closes, as Kafka's `SaslServerAuthenticator` does.
 */
import { AuthenticationError } from '../../auth/scram.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../../protocol/messages/sasl-authenticate.js';
import { defineApi } from '../api-handler.js';
import type { SaslGate } from '../sasl-gate.js';

const NOTHING = Buffer.alloc(0);

export function saslAuthenticate(gate: SaslGate) {
  return defineApi({
    request: SaslAuthenticateRequest,
    response: SaslAuthenticateResponse,
    minVersion: 0,
    maxVersion: 2,
    async handle(request, info, broker): Promise<SaslAuthenticateResponse> {
      const session = gate.session(info.connection);
      const refuse = (errorCode: number, errorMessage: string): SaslAuthenticateResponse => {
        info.connection.end();
        return { errorCode, errorMessage, authBytes: NOTHING, sessionLifetimeMs: 0n };
      };
      if (!session.handshakeDone || session.principal !== undefined)
        return refuse(ErrorCode.ILLEGAL_SASL_STATE, 'SaslAuthenticate is only valid after SaslHandshake and before authentication completes');
      try {
        const authBytes = session.step(request.authBytes);
        if (session.principal !== undefined) {
          broker.logger.info({ connection: info.connection.id, user: session.principal }, 'authenticated');
          await gate.answered(info.connection, false);
        }
        return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes, sessionLifetimeMs: 0n };
      } catch (err) {
        if (!(err instanceof AuthenticationError)) throw err;
        broker.logger.warn({ connection: info.connection.id, remote: info.connection.remoteAddress }, err.message);
        const refused = refuse(ErrorCode.SASL_AUTHENTICATION_FAILED, err.message);
        await gate.answered(info.connection, true);
        return refused;
      }
    },
  });
}

/** On a listener without SASL, Kafka (`KafkaApis.handleSaslAuthenticateRequest`) answers SaslAuthenticate ILLEGAL_SASL_STATE and goes on. */
export const saslAuthenticateWithoutSasl = defineApi({
  request: SaslAuthenticateRequest,
  response: SaslAuthenticateResponse,
  minVersion: 0,
  maxVersion: 2,
  withoutSasl: true,
  handle: (): SaslAuthenticateResponse => ({
    errorCode: ErrorCode.ILLEGAL_SASL_STATE,
    errorMessage: 'this listener does not use SASL',
    authBytes: NOTHING,
    sessionLifetimeMs: 0n,
  }),
});
