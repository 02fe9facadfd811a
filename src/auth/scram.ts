/**
 * SCRAM (RFC 5802, RFC 7677) for the server side, as Kafka's SCRAM-SHA-256/512. The server keeps
 * only salted credentials (salt, iterations, StoredKey, ServerKey): never a password.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export const SCRAM_MECHANISMS = ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
export type ScramMechanism = (typeof SCRAM_MECHANISMS)[number];

/** Kafka's minimum and maximum for SCRAM iterations. */
export const MIN_ITERATIONS = 4096;
export const MAX_ITERATIONS = 16384;

/** Kafka's ids for the mechanisms in AlterUserScramCredentials and DescribeUserScramCredentials. */
export const SCRAM_MECHANISM_TYPES: Readonly<Record<ScramMechanism, number>> = { 'SCRAM-SHA-256': 1, 'SCRAM-SHA-512': 2 };

export function scramMechanismOfType(type: number): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => SCRAM_MECHANISM_TYPES[m] === type);
}

const HASHES: Record<ScramMechanism, { name: string; bytes: number }> = {
  'SCRAM-SHA-256': { name: 'sha256', bytes: 32 },
  'SCRAM-SHA-512': { name: 'sha512', bytes: 64 },
};

export interface ScramCredential {
  readonly salt: Buffer;
  readonly iterations: number;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
}

export class AuthenticationError extends Error {}

const hmac = (hash: string, key: Buffer, text: string | Buffer): Buffer => createHmac(hash, key).update(text).digest();

/** The size of the mechanism's digests, and so of its StoredKey and ServerKey. */
export const scramDigestBytes = (mechanism: ScramMechanism): number => HASHES[mechanism].bytes;

/** Bytes of randomness a salt is made from: at least the 130 bits Kafka's salts hold. */
const SALT_RANDOM_BYTES = 17;

/**
 * A salt as Kafka's ScramFormatter.secureRandomString makes one: a 130-bit number written in base
 * 36, as ASCII bytes. Clients that read the salt as text (kafka-ts) need it so.
 */
export function saltFrom(random: Buffer): Buffer {
  const bits = BigInt(`0x${random.subarray(0, SALT_RANDOM_BYTES).toString('hex')}`) >> BigInt(SALT_RANDOM_BYTES * 8 - 130);
  return Buffer.from(bits.toString(36), 'ascii');
}

export function scramCredential(
  mechanism: ScramMechanism,
  password: string,
  iterations = MIN_ITERATIONS,
  salt: Buffer = saltFrom(randomBytes(SALT_RANDOM_BYTES)),
): ScramCredential {
  const { name, bytes } = HASHES[mechanism];
  return credentialFromSaltedPassword(mechanism, pbkdf2Sync(password.normalize('NFKC'), salt, iterations, bytes, name), salt, iterations);
}

/** The credential of a password already salted by the client (AlterUserScramCredentials sends only that). */
export function credentialFromSaltedPassword(mechanism: ScramMechanism, saltedPassword: Buffer, salt: Buffer, iterations: number): ScramCredential {
  const { name } = HASHES[mechanism];
  const clientKey = hmac(name, saltedPassword, 'Client Key');
  return { salt, iterations, storedKey: createHash(name).update(clientKey).digest(), serverKey: hmac(name, saltedPassword, 'Server Key') };
}

/** Whether `password` is the one `credential` was made from (for SASL/PLAIN). */
export function passwordMatches(mechanism: ScramMechanism, credential: ScramCredential, password: string): boolean {
  const { storedKey } = scramCredential(mechanism, password, credential.iterations, credential.salt);
  return timingSafeEqual(storedKey, credential.storedKey);
}

/** Attribute map of a SCRAM message: `k=v,k=v`. */
function attributes(message: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of message.split(',')) {
    const eq = part.indexOf('=');
    if (eq !== 1) throw new AuthenticationError(`malformed SCRAM attribute '${part}'`);
    out.set(part[0]!, part.slice(2));
  }
  return out;
}

function required(attrs: Map<string, string>, key: string): string {
  const value = attrs.get(key);
  if (value === undefined || value === '') throw new AuthenticationError(`SCRAM message lacks '${key}='`);
  return value;
}

/** One SCRAM exchange: client-first → server-first, client-final → server-final. */
export class ScramExchange {
  private state: { clientFirstBare: string; serverFirst: string; nonce: string; user: string; credential: ScramCredential } | undefined;
  private user: string | undefined;

  constructor(
    private readonly mechanism: ScramMechanism,
    private readonly lookup: (user: string) => ScramCredential | undefined,
    /** Stands in for unknown users, so that a failure never tells whether a user exists. */
    private readonly decoy: (user: string) => ScramCredential,
    private readonly serverNonce: () => string = () => randomBytes(18).toString('base64'),
  ) {}

  /** Whether client-first has been answered and client-final is next. */
  get awaitingFinal(): boolean {
    return this.state !== undefined;
  }

  /** The user the client-first message named, until client-final is judged. */
  get claimedUser(): string | undefined {
    return this.state?.user;
  }

  /** The authenticated user, once `final` has succeeded. */
  get principal(): string | undefined {
    return this.user;
  }

  first(clientFirst: string): string {
    const m = /^n,(?:a=[^,]*)?,(.*)$/s.exec(clientFirst);
    if (m === null) throw new AuthenticationError('SCRAM client-first message must start with "n,," (channel binding is not supported)');
    const clientFirstBare = m[1]!;
    const attrs = attributes(clientFirstBare);
    const user = required(attrs, 'n').replace(/=2C/g, ',').replace(/=3D/g, '=');
    const clientNonce = required(attrs, 'r');
    const credential = this.lookup(user) ?? this.decoy(user);
    const nonce = clientNonce + this.serverNonce();
    const serverFirst = `r=${nonce},s=${credential.salt.toString('base64')},i=${credential.iterations}`;
    this.state = { clientFirstBare, serverFirst, nonce, user, credential };
    return serverFirst;
  }

  final(clientFinal: string): string {
    const state = this.state;
    if (state === undefined) throw new AuthenticationError('SCRAM client-final message before client-first');
    this.state = undefined;
    const proofAt = clientFinal.lastIndexOf(',p=');
    if (proofAt < 0) throw new AuthenticationError('SCRAM client-final message lacks a proof');
    const withoutProof = clientFinal.slice(0, proofAt);
    const attrs = attributes(withoutProof);
    // Kafka accepts a nonce that ends with the server's; librdkafka 2.0 repeats its own part in front.
    if (required(attrs, 'c') !== 'biws' || !required(attrs, 'r').endsWith(state.nonce)) {
      throw new AuthenticationError('SCRAM client-final message does not match the exchange');
    }
    const hash = HASHES[this.mechanism].name;
    const authMessage = `${state.clientFirstBare},${state.serverFirst},${withoutProof}`;
    const proof = Buffer.from(clientFinal.slice(proofAt + 3), 'base64');
    const signature = hmac(hash, state.credential.storedKey, authMessage);
    if (proof.length !== signature.length) throw new AuthenticationError(`authentication failed for user '${state.user}'`);
    const clientKey = Buffer.from(proof.map((b, i) => b ^ signature[i]!));
    if (!timingSafeEqual(createHash(hash).update(clientKey).digest(), state.credential.storedKey) || this.lookup(state.user) === undefined) {
      throw new AuthenticationError(`authentication failed for user '${state.user}'`);
    }
    this.user = state.user;
    return `v=${hmac(hash, state.credential.serverKey, authMessage).toString('base64')}`;
  }
}
