/**
 * brook has no delegation tokens; Kafka's answers with them off. Kafka takes token requests only
 * from a client it knows (authenticated with SASL or by a TLS client certificate), refusing the
 * rest with DELEGATION_TOKEN_REQUEST_NOT_ALLOWED before it looks whether tokens are enabled.
 */
import { ErrorCode } from '../protocol/error-codes.js';
import type { ConnectionContext } from '../server/connection.js';
import type { BrokerContext } from './broker-context.js';

export function tokenRequestsAllowed(connection: ConnectionContext, broker: BrokerContext): boolean {
  return broker.sasl?.principal(connection) !== undefined || connection.certifiedPeer !== undefined;
}

/** RenewDelegationToken's and ExpireDelegationToken's answer: the broker's refusal carries expiry -1, the controller's 0. */
export function tokenChangeRefused(
  connection: ConnectionContext,
  broker: BrokerContext,
): { errorCode: number; expiryTimestampMs: bigint; throttleTimeMs: number } {
  if (!tokenRequestsAllowed(connection, broker))
    return { errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiryTimestampMs: -1n, throttleTimeMs: 0 };
  return { errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, expiryTimestampMs: 0n, throttleTimeMs: 0 };
}
