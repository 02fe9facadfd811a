/**
 * One connection's SASL state: the mechanism chosen by SaslHandshake, then the SaslAuthenticate
 * steps until a user is authenticated. PLAIN is one step; SCRAM two.
 */
import { createHmac, randomBytes } from 'node:crypto';
import {
  AuthenticationError,
  MIN_ITERATIONS,
  passwordMatches,
  saltFrom,
  SCRAM_MECHANISMS,
  ScramExchange,
  scramDigestBytes,
  type ScramCredential,
  type ScramMechanism,
} from './scram.js';
import type { CredentialLookup } from './users-file.js';

export const SASL_MECHANISMS = ['PLAIN', ...SCRAM_MECHANISMS] as const;

/** Per process: decoy salts stay the same for a name across attempts, yet cannot be predicted. */
const DECOY_SECRET = randomBytes(32);
/** Its keys are the mechanism's digest size, as a real credential's: the proof check then fails as for a wrong password. */
const decoy =
  (mechanism: ScramMechanism) =>
  (user: string): ScramCredential => ({
    salt: saltFrom(createHmac('sha256', DECOY_SECRET).update(user).digest()),
    iterations: MIN_ITERATIONS,
    storedKey: randomBytes(scramDigestBytes(mechanism)),
    serverKey: randomBytes(scramDigestBytes(mechanism)),
  });

export class SaslSession {
  private mechanism: string | undefined;
  private scram: ScramExchange | undefined;
  private user: string | undefined;
  /** The user the last step that judged a password named, authenticated or not. */
  private claimed = '';
  /** After a v0 handshake the tokens come as bare frames, not SaslAuthenticate requests. */
  private bareTokens = false;

  constructor(private readonly users: CredentialLookup) {}

  get principal(): string | undefined {
    return this.user;
  }

  /** The user the last judged step claimed to be (a failure's too), for throttling guesses. */
  get claimedUser(): string {
    return this.claimed;
  }

  /** Chooses the mechanism; false when it is not one brook offers. */
  handshake(mechanism: string, bareTokens: boolean): boolean {
    if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism)) return false;
    this.mechanism = mechanism;
    this.bareTokens = bareTokens;
    this.scram =
      mechanism === 'PLAIN'
        ? undefined
        : new ScramExchange(mechanism as ScramMechanism, (u) => this.users.get(u)?.get(mechanism as ScramMechanism), decoy(mechanism as ScramMechanism));
    return true;
  }

  get handshakeDone(): boolean {
    return this.mechanism !== undefined;
  }

  /** Whether the next frame is a bare SASL token rather than a Kafka request. */
  get expectsBareToken(): boolean {
    return this.bareTokens && this.user === undefined;
  }

  /** One SaslAuthenticate step; throws AuthenticationError when the client fails. */
  step(bytes: Buffer): Buffer {
    if (this.scram !== undefined) {
      const text = bytes.toString('utf8');
      if (!this.scram.awaitingFinal) return Buffer.from(this.scram.first(text));
      this.claimed = this.scram.claimedUser ?? '';
      const serverFinal = this.scram.final(text);
      this.user = this.scram.principal;
      return Buffer.from(serverFinal);
    }
    this.user = this.plain(bytes);
    return Buffer.alloc(0);
  }

  private plain(bytes: Buffer): string {
    const parts = bytes.toString('utf8').split('\u0000');
    if (parts.length !== 3) throw new AuthenticationError('SASL/PLAIN message must be authzid NUL user NUL password');
    const [authzid, user, password] = parts as [string, string, string];
    this.claimed = user;
    if (authzid !== '' && authzid !== user) throw new AuthenticationError(`user '${user}' may not act as '${authzid}'`);
    const credentials = this.users.get(user);
    const [mechanism, credential] = credentials?.entries().next().value ?? [];
    if (mechanism === undefined || credential === undefined || !passwordMatches(mechanism, credential, password)) {
      throw new AuthenticationError(`authentication failed for user '${user}'`);
    }
    return user;
  }
}
