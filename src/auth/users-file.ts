/**
 * The users file of `--sasl-users-file`: per user, salted SCRAM credentials (never a password), as JSON:
 * { "users": { "alice": { "SCRAM-SHA-256": { "salt": b64, "iterations": n, "storedKey": b64, "serverKey": b64 }, … } } }
 * SASL/PLAIN is checked against the same credentials.
 */
import { readFile } from 'node:fs/promises';
import { readFileIfExists, writeFileDurably } from '../files/durable-file.js';
import { MIN_ITERATIONS, SCRAM_MECHANISMS, scramCredential, type ScramCredential, type ScramMechanism } from './scram.js';

export type UserCredentials = ReadonlyMap<ScramMechanism, ScramCredential>;
export type SaslUsers = ReadonlyMap<string, UserCredentials>;

/** Where an authentication finds a user's credentials. */
export interface CredentialLookup {
  get(user: string): UserCredentials | undefined;
}

interface StoredCredential {
  salt: string;
  iterations: number;
  storedKey: string;
  serverKey: string;
}
type UsersJson = { users: Record<string, Partial<Record<ScramMechanism, StoredCredential>>> };

const isMechanism = (name: string): name is ScramMechanism => (SCRAM_MECHANISMS as readonly string[]).includes(name);

export async function loadSaslUsers(path: string): Promise<SaslUsers> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read SASL users from ${path}: ${(err as Error).message}`);
  }
  return parseSaslUsers(path, text);
}

/** The users in the file, or none if there is no file yet. */
export async function loadSaslUsersIfAny(path: string): Promise<SaslUsers> {
  const bytes = await readFileIfExists(path);
  return bytes === undefined ? new Map() : parseSaslUsers(path, bytes.toString('utf8'));
}

function parseSaslUsers(path: string, text: string): SaslUsers {
  let json: UsersJson;
  try {
    json = JSON.parse(text) as UsersJson;
  } catch (err) {
    throw new Error(`cannot read SASL users from ${path}: ${(err as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || typeof json.users !== 'object') throw new Error(`${path} has no "users" object`);
  const users = new Map<string, Map<ScramMechanism, ScramCredential>>();
  for (const [user, mechanisms] of Object.entries(json.users)) {
    const credentials = new Map<ScramMechanism, ScramCredential>();
    for (const [mechanism, c] of Object.entries(mechanisms ?? {})) {
      if (!isMechanism(mechanism)) throw new Error(`${path}: user '${user}' has unknown mechanism '${mechanism}'`);
      if (
        !c ||
        typeof c.salt !== 'string' ||
        typeof c.storedKey !== 'string' ||
        typeof c.serverKey !== 'string' ||
        !Number.isInteger(c.iterations) ||
        c.iterations < MIN_ITERATIONS
      ) {
        throw new Error(`${path}: user '${user}' ${mechanism} needs salt, storedKey, serverKey (base64) and iterations of at least ${MIN_ITERATIONS}`);
      }
      credentials.set(mechanism, {
        salt: Buffer.from(c.salt, 'base64'),
        iterations: c.iterations,
        storedKey: Buffer.from(c.storedKey, 'base64'),
        serverKey: Buffer.from(c.serverKey, 'base64'),
      });
    }
    users.set(user, credentials);
  }
  return users;
}

/** Replaces the file atomically and durably with these users. */
export async function writeSaslUsers(path: string, users: SaslUsers): Promise<void> {
  const json: UsersJson = {
    // Object.fromEntries, not assignment: a user named __proto__ is an entry like any other.
    users: Object.fromEntries(
      [...users].map(([user, credentials]) => [
        user,
        Object.fromEntries(
          [...credentials].map(([mechanism, c]) => [
            mechanism,
            { salt: c.salt.toString('base64'), iterations: c.iterations, storedKey: c.storedKey.toString('base64'), serverKey: c.serverKey.toString('base64') },
          ]),
        ),
      ]),
    ),
  };
  // Only the owner reads it: the salted credentials would let others try passwords offline.
  await writeFileDurably(path, `${JSON.stringify(json, null, 2)}\n`, 0o600);
}

/** Adds or replaces a user's credentials for each mechanism, derived from `password`. */
export async function saveSaslUser(
  path: string,
  user: string,
  password: string,
  mechanisms: readonly ScramMechanism[],
  iterations = MIN_ITERATIONS,
): Promise<void> {
  const users = new Map(await loadSaslUsersIfAny(path));
  users.set(user, new Map(mechanisms.map((mechanism) => [mechanism, scramCredential(mechanism, password, iterations)])));
  await writeSaslUsers(path, users);
}
