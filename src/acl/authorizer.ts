/**
 * A broker's authorizer: its ACLs, kept in `acls.json` in the data directory (each change written
 * durably before it is answered), and its decisions, cached per principal, host, resource and
 * operation until the ACLs next change.
 */
import { join } from 'node:path';
import { DurableJsonFile, isVersion1 } from '../files/durable-file.js';
import type { AclBinding } from './acl-binding.js';
import { AclIndex, isAllowed, isAllowedOnAnyResource, type Action, type Policy } from './acl-decision.js';
import { matchesFilter, sameBinding, type AclFilter } from './acl-filter.js';

interface AclsDocument {
  readonly version: 1;
  readonly acls: readonly AclBinding[];
}

const FIELDS = ['resourceType', 'resourceName', 'patternType', 'principal', 'host', 'operation', 'permission'] as const;
const isBinding = (v: unknown): v is AclBinding =>
  typeof v === 'object' &&
  v !== null &&
  FIELDS.every((f) => typeof (v as Record<string, unknown>)[f] === (f === 'resourceName' || f === 'principal' || f === 'host' ? 'string' : 'number'));
const isAclsDocument = (v: unknown): v is AclsDocument => isVersion1(v) && Array.isArray(v.acls) && v.acls.every(isBinding);

/** Decisions kept at most, so that many clients or resources cannot grow the cache without end. */
const MAX_CACHED = 100_000;

export class Authorizer {
  private acls: AclIndex;
  private readonly cache = new Map<string, boolean>();
  /** Changes one after another, each from the ACLs the last left. */
  private changes: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly file: DurableJsonFile<AclsDocument>,
    readonly policy: Policy,
    bindings: readonly AclBinding[],
  ) {
    this.acls = new AclIndex(bindings);
  }

  static async open(dataDir: string, policy: Policy): Promise<Authorizer> {
    const file = new DurableJsonFile(join(dataDir, 'acls.json'), isAclsDocument);
    const document = await file.read();
    return new Authorizer(file, policy, document?.acls ?? []);
  }

  get bindings(): readonly AclBinding[] {
    return this.acls.bindings;
  }

  allows(action: Action): boolean {
    return this.cached(`${action.principal}\n${action.host}\n${action.resourceType}\n${action.resourceName}\n${action.operation}`, () =>
      isAllowed(this.acls, this.policy, action),
    );
  }

  /** Whether the action is allowed on some resource of its type (Kafka's authorizeByResourceType). */
  allowsOnAnyResource(action: Omit<Action, 'resourceName'>): boolean {
    return this.cached(`${action.principal}\n${action.host}\n${action.resourceType}\n\n${action.operation}\nany`, () =>
      isAllowedOnAnyResource(this.acls, this.policy, action),
    );
  }

  /** Adds the bindings not there yet; resolves once they are stored. */
  create(bindings: readonly AclBinding[]): Promise<void> {
    return this.change((current) => {
      const added: AclBinding[] = [];
      for (const b of bindings) if (![...current, ...added].some((c) => sameBinding(c, b))) added.push(b);
      return { acls: [...current, ...added], result: undefined };
    });
  }

  /** Removes what each filter matches; resolves once stored, with each filter's matches (a binding two filters match is in both). */
  delete(filters: readonly AclFilter[]): Promise<AclBinding[][]> {
    return this.change((current) => {
      const matched = filters.map((f) => current.filter((b) => matchesFilter(b, f)));
      const gone = new Set(matched.flat());
      return { acls: current.filter((b) => !gone.has(b)), result: matched };
    });
  }

  private change<R>(make: (current: readonly AclBinding[]) => { acls: readonly AclBinding[]; result: R }): Promise<R> {
    const done = this.changes.then(async () => {
      const { acls, result } = make(this.acls.bindings);
      if (acls.length !== this.acls.bindings.length || acls.some((b, i) => b !== this.acls.bindings[i])) {
        await this.file.write({ version: 1, acls });
        this.acls = new AclIndex(acls);
        this.cache.clear();
      }
      return result;
    });
    this.changes = done.catch(() => undefined);
    return done;
  }

  private cached(key: string, decide: () => boolean): boolean {
    let allowed = this.cache.get(key);
    if (allowed === undefined) {
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      allowed = decide();
      this.cache.set(key, allowed);
    }
    return allowed;
  }
}
