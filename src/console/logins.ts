/**
 * Who is logged in to the console when the broker has SASL users: a user logs in with the
 * password SASL/PLAIN would take (checked by the same session code) and gets a random token in a
 * cookie. Bounded: past MAX_LOGINS the oldest login ends.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoginThrottle } from '../auth/login-throttle.js';
import { SaslSession } from '../auth/sasl-session.js';
import { AuthenticationError } from '../auth/scram.js';
import type { CredentialLookup } from '../auth/users-file.js';

const MAX_LOGINS = 1000;
/** A login lasts this long (Kafka's connections re-authenticate; here a person logs in again). */
const LOGIN_MS = 12 * 3600 * 1000;
export const LOGIN_COOKIE = 'brook_console';

export class Logins {
  /** token → user and when the login ends, oldest first. */
  private readonly logins = new Map<string, { user: string; ends: number }>();

  constructor(
    private readonly users: CredentialLookup,
    /** The broker's, which SASL's guesses share. */
    private readonly throttle: LoginThrottle,
  ) {}

  /** A new login's token, or undefined when the password is wrong; answered as the throttle allows. */
  async login(user: string, password: string, address: string): Promise<string | undefined> {
    const session = new SaslSession(this.users);
    session.handshake('PLAIN', false);
    try {
      session.step(Buffer.from(`\u0000${user}\u0000${password}`, 'utf8'));
    } catch (err) {
      if (!(err instanceof AuthenticationError)) throw err;
      await sleep(this.throttle.answerDelay(user, address, true));
      return undefined;
    }
    await sleep(this.throttle.answerDelay(user, address, false));
    const token = randomBytes(32).toString('base64url');
    this.logins.set(token, { user, ends: Date.now() + LOGIN_MS });
    if (this.logins.size > MAX_LOGINS) this.logins.delete(this.logins.keys().next().value!);
    return token;
  }

  /** The user logged in with the request's cookie, if any. */
  userOf(cookieHeader: string | undefined): string | undefined {
    const token = tokenOf(cookieHeader);
    const login = token === undefined ? undefined : this.logins.get(token);
    if (login === undefined) return undefined;
    if (login.ends > Date.now()) return login.user;
    this.logins.delete(token!);
    return undefined;
  }

  logout(cookieHeader: string | undefined): void {
    const token = tokenOf(cookieHeader);
    if (token !== undefined) this.logins.delete(token);
  }
}

function tokenOf(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === LOGIN_COOKIE && value !== undefined) return value;
  }
  return undefined;
}
