/**
 * SASL on a listener: each connection's session, and the rule that before authentication only
 * ApiVersions, SaslHandshake and SaslAuthenticate may be sent.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LoginThrottle } from '../auth/login-throttle.js';
import { SaslSession } from '../auth/sasl-session.js';
import { ApiKey } from '../protocol/messages/apis.js';
import { AuthenticationError } from '../auth/scram.js';
import { RequestRejected } from './request-rejected.js';
import type { CredentialLookup } from '../auth/users-file.js';
import type { ConnectionContext } from '../server/connection.js';

const BEFORE_AUTHENTICATION = new Set<number>([ApiKey.ApiVersions, ApiKey.SaslHandshake, ApiKey.SaslAuthenticate]);

export class SaslGate {
  private readonly sessions = new WeakMap<ConnectionContext, SaslSession>();
  /** Password guesses over SASL and in the console, answered a delay apart (Kafka's connection.failed.authentication.delay.ms). */
  readonly logins: LoginThrottle;

  constructor(
    private readonly users: CredentialLookup,
    failedAuthenticationDelayMs: number,
  ) {
    this.logins = new LoginThrottle(failedAuthenticationDelayMs);
  }

  /** Waits until the answer to the connection's step, just judged, may go. */
  answered(connection: ConnectionContext, failed: boolean): Promise<void> {
    return sleep(this.logins.answerDelay(this.session(connection).claimedUser, connection.address, failed));
  }

  session(connection: ConnectionContext): SaslSession {
    let session = this.sessions.get(connection);
    if (session === undefined) this.sessions.set(connection, (session = new SaslSession(this.users)));
    return session;
  }

  /** A SASL token sent as a bare frame after a v0 handshake: the answer, size prefix included. */
  async bareToken(connection: ConnectionContext, frame: Buffer): Promise<Buffer> {
    try {
      const session = this.session(connection);
      const token = session.step(frame);
      if (session.principal !== undefined) await this.answered(connection, false);
      const out = Buffer.allocUnsafe(4 + token.length);
      out.writeInt32BE(token.length, 0);
      token.copy(out, 4);
      return out;
    } catch (err) {
      if (!(err instanceof AuthenticationError)) throw err;
      // With bare tokens there is no error response: the connection is closed, after the delay.
      // It takes nothing more meanwhile.
      connection.end();
      await this.answered(connection, true);
      throw new RequestRejected(err.message);
    }
  }

  expectsBareToken(connection: ConnectionContext): boolean {
    return this.sessions.get(connection)?.expectsBareToken === true;
  }

  allows(connection: ConnectionContext, apiKey: number): boolean {
    return BEFORE_AUTHENTICATION.has(apiKey) || this.principal(connection) !== undefined;
  }

  /** The user the connection authenticated as, if it has. */
  principal(connection: ConnectionContext): string | undefined {
    return this.sessions.get(connection)?.principal;
  }
}
