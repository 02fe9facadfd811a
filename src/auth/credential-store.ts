/**
 * The SCRAM credentials of a running broker, from its SASL users file: each authentication
 * reads them, and DescribeUserScramCredentials and AlterUserScramCredentials manage them by the
 * rules of Kafka's controller. An alteration is written to the file, atomically and durably,
 * before it is answered, and counts from the next authentication.
 */
import { ErrorCode } from '../protocol/error-codes.js';
import {
  credentialFromSaltedPassword,
  MAX_ITERATIONS,
  MIN_ITERATIONS,
  SCRAM_MECHANISM_TYPES,
  scramMechanismOfType,
  type ScramCredential,
  type ScramMechanism,
} from './scram.js';
import { loadSaslUsers, loadSaslUsersIfAny, writeSaslUsers, type CredentialLookup, type SaslUsers, type UserCredentials } from './users-file.js';

export interface UserResult {
  readonly user: string;
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface DescribedUser extends UserResult {
  /** Kafka's mechanism type ids with their iterations. */
  readonly credentials: readonly { readonly mechanism: number; readonly iterations: number }[];
}

export interface CredentialDeletion {
  readonly name: string;
  /** Kafka's mechanism type id. */
  readonly mechanism: number;
}

export interface CredentialUpsertion extends CredentialDeletion {
  readonly iterations: number;
  readonly salt: Buffer;
  readonly saltedPassword: Buffer;
}

export interface Alterations {
  readonly deletions: readonly CredentialDeletion[];
  readonly upsertions: readonly CredentialUpsertion[];
}

/** Kafka's answer about each user named (every user, given null): its mechanisms and iterations. */
export function describeUsers(users: SaslUsers, names: readonly string[] | null): DescribedUser[] {
  const answer = (user: string, errorCode: number, errorMessage: string | null, credentials: DescribedUser['credentials'] = []): DescribedUser => ({
    user,
    errorCode,
    errorMessage,
    credentials,
  });
  if (names === null || names.length === 0) return [...users].map(([user, credentials]) => answer(user, ErrorCode.NONE, null, infos(credentials)));
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([user, count]) => {
    if (count > 1) return answer(user, ErrorCode.DUPLICATE_RESOURCE, `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`);
    const credentials = users.get(user);
    if (credentials === undefined || credentials.size === 0) {
      return answer(user, ErrorCode.RESOURCE_NOT_FOUND, `Attempt to describe a user credential that does not exist: ${user}`);
    }
    return answer(user, ErrorCode.NONE, null, infos(credentials));
  });
}

const infos = (credentials: UserCredentials): DescribedUser['credentials'] =>
  [...credentials].map(([mechanism, c]) => ({ mechanism: SCRAM_MECHANISM_TYPES[mechanism], iterations: c.iterations }));

/** The alterations that pass Kafka's checks, and the users refused with why. */
export interface CheckedAlterations {
  readonly deletions: readonly { readonly user: string; readonly mechanism: ScramMechanism }[];
  readonly upsertions: readonly { readonly user: string; readonly mechanism: ScramMechanism; readonly credential: ScramCredential }[];
  readonly refused: ReadonlyMap<string, { readonly errorCode: number; readonly errorMessage: string }>;
}

/**
 * Kafka's checks: a user altered twice in one request is DUPLICATE_RESOURCE; an empty name or an
 * unknown mechanism is refused, a deletion of a credential that does not exist, and iterations
 * outside 4096..16384. `unsupported`, given, refuses whatever passes those, as Kafka's `ScramControlManager.alterCredentials` does when
 * its metadata version has no SCRAM.
 */
export function checkAlterations(request: Alterations, exists: (user: string, mechanism: ScramMechanism) => boolean, unsupported?: string): CheckedAlterations {
  const refused = new Map<string, { errorCode: number; errorMessage: string }>();
  const deletions = new Map<string, { user: string; mechanism: ScramMechanism }>();
  const upsertions = new Map<string, { user: string; mechanism: ScramMechanism; credential: ScramCredential }>();
  const refuse = (user: string, errorCode: number, errorMessage: string): void => void refused.set(user, { errorCode, errorMessage });
  const twice = (user: string): boolean => {
    const seen = deletions.delete(user) || upsertions.delete(user);
    if (seen) refuse(user, ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request');
    return seen;
  };
  const problem = (name: string, mechanism: ScramMechanism | undefined): [number, string] | undefined => {
    if (unsupported !== undefined) return [ErrorCode.UNSUPPORTED_VERSION, unsupported];
    if (name === '') return [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty'];
    if (mechanism === undefined) return [ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'];
    return undefined;
  };
  for (const d of request.deletions) {
    if (refused.has(d.name) || twice(d.name)) continue;
    const mechanism = scramMechanismOfType(d.mechanism);
    const bad = problem(d.name, mechanism);
    if (bad !== undefined) refuse(d.name, ...bad);
    else if (!exists(d.name, mechanism!)) refuse(d.name, ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist');
    else deletions.set(d.name, { user: d.name, mechanism: mechanism! });
  }
  for (const u of request.upsertions) {
    if (refused.has(u.name) || twice(u.name)) continue;
    const mechanism = scramMechanismOfType(u.mechanism);
    const bad = problem(u.name, mechanism);
    if (bad !== undefined) refuse(u.name, ...bad);
    else if (u.iterations < MIN_ITERATIONS) refuse(u.name, ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations');
    else if (u.iterations > MAX_ITERATIONS) refuse(u.name, ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations');
    else
      upsertions.set(u.name, {
        user: u.name,
        mechanism: mechanism!,
        credential: credentialFromSaltedPassword(mechanism!, u.saltedPassword, u.salt, u.iterations),
      });
  }
  return { deletions: [...deletions.values()], upsertions: [...upsertions.values()], refused };
}

/** One result per user, as Kafka's `ScramControlManager.alterCredentials` orders them: deletions, upsertions, then refusals. */
export function alterationResults(checked: CheckedAlterations, failure?: string): UserResult[] {
  const done = [...checked.deletions, ...checked.upsertions].map(({ user }) =>
    failure === undefined
      ? { user, errorCode: ErrorCode.NONE, errorMessage: null }
      : { user, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: failure },
  );
  return [...done, ...[...checked.refused].map(([user, r]) => ({ user, ...r }))];
}

export class CredentialStore implements CredentialLookup {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly path: string,
    private current: SaslUsers,
  ) {}

  static async open(path: string): Promise<CredentialStore> {
    return new CredentialStore(path, await loadSaslUsers(path));
  }

  get users(): SaslUsers {
    return this.current;
  }

  get(user: string): UserCredentials | undefined {
    return this.current.get(user);
  }

  /** Alterations run one at a time, each from the file as it is, so that users `brook add-user` wrote meanwhile stay. */
  alter(request: Alterations): Promise<UserResult[]> {
    const result = this.queue.then(() => this.alterNow(request));
    this.queue = result.catch(() => {});
    return result;
  }

  private async alterNow(request: Alterations): Promise<UserResult[]> {
    let stored: SaslUsers;
    try {
      stored = await loadSaslUsersIfAny(this.path);
    } catch (err) {
      // What would have been done fails, the file being unreadable; what Kafka (`ScramControlManager`) refuses is refused as ever.
      return alterationResults(
        checkAlterations(request, () => true),
        (err as Error).message,
      );
    }
    const checked = checkAlterations(request, (user, mechanism) => stored.get(user)?.has(mechanism) === true);
    if (checked.deletions.length + checked.upsertions.length === 0) return alterationResults(checked);
    const next = new Map([...stored].map(([user, credentials]) => [user, new Map(credentials)]));
    for (const { user, mechanism } of checked.deletions) {
      next.get(user)!.delete(mechanism);
      if (next.get(user)!.size === 0) next.delete(user);
    }
    for (const { user, mechanism, credential } of checked.upsertions) next.set(user, new Map(next.get(user) ?? []).set(mechanism, credential));
    try {
      await writeSaslUsers(this.path, next);
    } catch (err) {
      return alterationResults(checked, `the users file could not be written: ${(err as Error).message}`);
    }
    this.current = next;
    return alterationResults(checked);
  }
}
