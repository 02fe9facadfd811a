/**
 * `brook serve --fault SPEC`: a fault rule in one shell word, its fields separated by commas,
 * each `NAME=VALUE` with the names startBroker's rules have:
 *
 *   Produce,dropResponse,probability=5%,seed=7
 *   api=Fetch,topic=orders,partition=0,error=NOT_LEADER_OR_FOLLOWER,count=3
 *
 * `dropResponse`, `closeConnection` and `holdCheck` stand alone; the first field may be the API alone; a
 * probability may be a percentage.
 */
import { everyVersionServed } from '../broker/api-table.js';
import { checkRule, FaultRuleError, type FaultRule } from '../faults/rule.js';
import { closestWord } from '../faults/closest-word.js';

const FLAGS = ['dropResponse', 'closeConnection', 'holdCheck'];
const NUMBERS = ['partition', 'node', 'count', 'seed', 'delayMs'];

export function parseFaultSpec(spec: string): FaultRule {
  const rule: Record<string, unknown> = {};
  spec.split(',').forEach((field, i) => {
    const eq = field.indexOf('=');
    const [name, text] =
      eq < 0 ? (FLAGS.includes(field) ? [field, 'true'] : i === 0 ? ['api', field] : [field, undefined]) : [field.slice(0, eq), field.slice(eq + 1)];
    if (text === undefined) {
      const meant = closestWord(field, FLAGS);
      throw new Error(`'${field}' is not NAME=VALUE${meant === undefined ? '' : ` (did you mean '${meant}'?)`}`);
    }
    if (Object.hasOwn(rule, name)) throw new Error(`${name} is given twice`);
    rule[name] = valueOf(name, text);
  });
  try {
    checkRule(rule, everyVersionServed());
  } catch (err) {
    if (err instanceof FaultRuleError) throw new Error(`It ${err.problem}`);
    throw err;
  }
  return rule as unknown as FaultRule;
}

/** The value as a rule holds it; what does not parse stays text, for the rule's check to name. */
function valueOf(name: string, text: string): unknown {
  const whole = /^-?[0-9]+$/.test(text) ? Number(text) : undefined;
  if (FLAGS.includes(name)) return text === 'true' ? true : text;
  if (NUMBERS.includes(name)) return whole ?? text;
  if (name === 'api' || name === 'error') return whole ?? text;
  if (name === 'probability') {
    const percent = /^([0-9.]+)%$/.exec(text);
    const n = percent === null ? Number(text) : Number(percent[1]) / 100;
    return text === '' || Number.isNaN(n) ? text : n;
  }
  return text;
}
