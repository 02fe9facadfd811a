/**
 * Which installed faults act on a request, and what they do to it. Pure but for the faults'
 * own counts: `decide` charges each fault that acts and takes out those whose count is spent.
 *
 * A fault matches a request of its API that names its topic (and partition), or any request of
 * its API when it names none; a fault naming a node, only requests arriving at that node. Faults are tried in the order added, each drawing against its
 * probability only when it would act:
 * - a closeConnection fault acts first, alone: the request is not handled, so nothing else acts;
 * - then a hold fault, alone: the request is handled, as if it arrived then, at the fault's next release;
 * - of the rest, the first dropResponse and the first delayMs fault act;
 * - an error fault answers its error for each topic or partition it matches that no earlier
 *   error fault has taken (the whole request, for APIs that name none), and acts if it took any.
 */
import type { CheckedRule } from './rule.js';
import type { Named } from './request-layouts.js';
import { seeded } from './seeded.js';

/** A fault installed on a broker: its rule, and what is left of it. */
export class InstalledFault {
  /** Requests it has acted on. */
  fired = 0;
  /** Requests it may still act on. */
  left: number;
  private readonly draw: () => number;
  /** What a hold or holdCheck fault's requests wait for: the next release. */
  private gate = newGate();

  constructor(readonly rule: CheckedRule) {
    this.left = rule.count;
    this.draw = seeded(rule.seed);
  }

  /** Resolves at the fault's next release. */
  get released(): Promise<void> {
    return this.gate.promise;
  }

  /** Lets go what it holds so far; what it matches later waits for the next release. */
  release(): void {
    this.gate.open();
    this.gate = newGate();
  }

  /** Whether it acts this time: always, or as its seeded draw says. */
  drawn(): boolean {
    return this.rule.probability >= 1 || this.draw() < this.rule.probability;
  }
}

function newGate(): { readonly promise: Promise<void>; readonly open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

export interface Outcome {
  /** The connection closes on arrival; nothing else is done. */
  readonly closeConnection: boolean;
  /** The request waits for this fault's release, then is handled; nothing else is done. */
  readonly held: InstalledFault | undefined;
  readonly dropResponse: boolean;
  /** 0: the answer is not held back. */
  readonly delayMs: number;
  /** By index into the request's named entries, the fault whose error the entry is answered with. */
  readonly errors: ReadonlyMap<number, InstalledFault>;
  /** The whole request's error, for APIs whose requests name no topic. */
  readonly requestError: number | undefined;
  /** The named entries a holdCheck fault holds, by index, and what they wait for. */
  readonly heldChecks: { readonly entries: readonly number[]; readonly released: Promise<void> } | undefined;
  /** The faults that acted, in the order added. */
  readonly fired: readonly InstalledFault[];
}

/**
 * What `installed` does to a request of API `apiKey` naming `named` (undefined: an API whose
 * requests name no topic), arriving at node `nodeId`; undefined when no fault acts.
 */
export function decide(installed: InstalledFault[], apiKey: number, named: readonly Named[] | undefined, nodeId: number): Outcome | undefined {
  const matching = installed.filter(
    (f) =>
      f.rule.apiKey === apiKey &&
      (f.rule.node === undefined || f.rule.node === nodeId) &&
      (f.rule.topic === undefined || named?.some((n) => covers(f.rule, n)) === true),
  );
  if (matching.length === 0) return undefined;
  const closing = matching.find((f) => f.rule.action.kind === 'closeConnection' && f.drawn());
  if (closing !== undefined) return alone(installed, closing, { closeConnection: true, held: undefined });
  const holding = matching.find((f) => f.rule.action.kind === 'hold' && f.drawn());
  if (holding !== undefined) return alone(installed, holding, { closeConnection: false, held: holding });
  const fired: InstalledFault[] = [];
  let dropResponse = false;
  let delayMs = 0;
  let requestError: number | undefined;
  let heldChecks: Outcome['heldChecks'];
  const errors = new Map<number, InstalledFault>();
  for (const f of matching) {
    const action = f.rule.action;
    switch (action.kind) {
      case 'closeConnection':
      case 'hold':
        continue;
      case 'dropResponse':
        if (dropResponse || !f.drawn()) continue;
        dropResponse = true;
        break;
      case 'delayMs':
        if (delayMs > 0 || !f.drawn()) continue;
        delayMs = action.ms;
        break;
      case 'holdCheck': {
        const entries = named?.flatMap((n, i) => (covers(f.rule, n) ? [i] : [])) ?? [];
        if (heldChecks !== undefined || entries.length === 0 || !f.drawn()) continue;
        heldChecks = { entries, released: f.released };
        break;
      }
      case 'error':
        if (named === undefined) {
          if (requestError !== undefined || !f.drawn()) continue;
          requestError = action.errorCode;
        } else {
          const taken = named.flatMap((n, i) => (!errors.has(i) && covers(f.rule, n) ? [i] : []));
          if (taken.length === 0 || !f.drawn()) continue;
          for (const i of taken) errors.set(i, f);
        }
        break;
    }
    fired.push(f);
  }
  for (const f of fired) charge(installed, f);
  return fired.length === 0 ? undefined : { closeConnection: false, held: undefined, dropResponse, delayMs, errors, requestError, heldChecks, fired };
}

/** The outcome of `fault` acting alone on a request (closing it, or holding it): nothing else acts. */
function alone(installed: InstalledFault[], fault: InstalledFault, action: Pick<Outcome, 'closeConnection' | 'held'>): Outcome {
  charge(installed, fault);
  return { ...action, dropResponse: false, delayMs: 0, errors: new Map(), requestError: undefined, heldChecks: undefined, fired: [fault] };
}

/** Whether a rule's topic and partition cover one named entry. */
function covers(rule: CheckedRule, n: Named): boolean {
  return rule.topic === undefined || (rule.topic === n.topic && (rule.partition === undefined || rule.partition === n.partition));
}

function charge(installed: InstalledFault[], f: InstalledFault): void {
  f.fired++;
  if (--f.left === 0) installed.splice(installed.indexOf(f), 1);
}
