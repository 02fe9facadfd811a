/** A broker's installed faults: what `broker.faults` is. They outlive the broker's restarts. */
import { InstalledFault } from './matching.js';
import { checkRule, describeRule, type FaultRule, type ServedApis } from './rule.js';

/** An installed fault. */
export interface FaultHandle {
  /** Requests it has acted on so far. */
  readonly fired: number;
  /** Takes it out, letting go what it holds; requests from then on are not touched by it. Harmless when already out. */
  remove(): void;
  /** A hold or holdCheck fault: lets go what it holds so far; what it matches later waits for the next release. */
  release(): void;
}

export interface Faults {
  /** Installs a fault; a FaultRuleError (a TypeError) says what is wrong with a rule. */
  add(rule: FaultRule): FaultHandle;
  /** Takes every fault out, releasing what they hold. */
  clear(): void;
}

interface FaultLog {
  info(fields: object, message: string): void;
}

export class FaultRegistry implements Faults {
  /** In the order added; requests are matched against none while it is empty. */
  readonly installed: InstalledFault[] = [];

  constructor(
    private readonly served: ServedApis,
    private readonly log: FaultLog,
    /** How many nodes the broker serves: a rule may name node 1 to this. */
    private readonly nodes = 1,
  ) {}

  add(rule: FaultRule): FaultHandle {
    const fault = new InstalledFault(checkRule(rule, this.served, this.nodes));
    this.installed.push(fault);
    this.log.info({ fault: rule, seed: fault.rule.seed }, `fault added: ${describeRule(fault.rule)}`);
    const installed = this.installed;
    return {
      get fired() {
        return fault.fired;
      },
      remove() {
        const i = installed.indexOf(fault);
        if (i >= 0) installed.splice(i, 1);
        fault.release();
      },
      release() {
        fault.release();
      },
    };
  }

  clear(): void {
    for (const fault of this.installed) fault.release();
    this.installed.length = 0;
  }
}
