/**
 * The README's table of `brook serve` flags and its table of startBroker options, made from the
 * settings table (src/settings/settings.ts) between marker comments; the rest of the README is
 * left as it is.
 */
import { ANY } from '../src/settings/kinds.js';
import { FLAGS, flagDescription, flagOf, OPTIONS, type Setting } from '../src/settings/settings.js';
import { TOPIC_CONFIG_OF_SETTING } from '../src/settings/topic-configs.js';

/** The README with its settings tables as the settings table makes them. */
export function withSettingsTables(readme: string): string {
  return between(between(readme, 'flags', flagsTable()), 'options', optionsTable());
}

function between(readme: string, part: string, table: string): string {
  const begin = `<!-- begin ${part}: made from src/settings/settings.ts by npm run gen:readme -->\n`;
  const end = `<!-- end ${part} -->`;
  const from = readme.indexOf(begin);
  const to = readme.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`README.md has no "${begin.trim()}" ... "${end}" to put the ${part} between`);
  return readme.slice(0, from + begin.length) + table + readme.slice(to);
}

function flagsTable(): string {
  const rows = FLAGS.map(([name, s]) => {
    const flag = flagOf(name, s);
    return [`\`${flag}\``, s.kind.arg === '' ? '' : words(s.kind.flagSaid ?? s.kind.said), shownDefault(s), kafkaNames(name, s), flagDescription(s)];
  });
  return table(['flag', 'takes', 'default', "Kafka's name", 'what it does'], rows);
}

function optionsTable(): string {
  const rows = OPTIONS.map(([name, s]) => {
    const does = s.only === 'option' ? s.description : `as \`${flagOf(name, s)}\``;
    return [`\`${name}\``, words(s.kind.said), s.embedded ?? shownDefault(s), does];
  });
  return table(['option', 'takes', 'default', 'what it does'], rows);
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |\n`;
  return line(head) + line(head.map(() => '---')) + rows.map(line).join('');
}

function kafkaNames(name: string, s: Setting): string {
  if (s.broker === undefined) return s.kafka ?? '—';
  const topic = TOPIC_CONFIG_OF_SETTING.get(name);
  return topic === undefined ? `\`${s.broker}\`` : `\`${s.broker}\` (topics: \`${topic}\`)`;
}

function shownDefault(s: Setting): string {
  const d = s.default;
  if (d === undefined) return s.unset ?? '—';
  if (typeof d !== 'number') return `\`${typeof d === 'object' ? JSON.stringify(d) : String(d)}\``;
  const larger = s.kind.unit === undefined ? undefined : inUnits(d, UNITS[s.kind.unit]);
  return larger === undefined ? number(d) : `${number(d)} (${larger})`;
}

const UNITS = {
  bytes: [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ],
  ms: [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1000],
  ],
} as const;

/** `n` in the largest unit that counts it whole: 7 days, 64 MiB. */
function inUnits(n: number, units: readonly (readonly [string, number])[]): string | undefined {
  if (n === ANY) return undefined;
  const found = units.find(([, size]) => n >= size && n % size === 0);
  if (found === undefined) return undefined;
  const [unit, size] = found;
  const count = n / size;
  return /iB$/.test(unit) || count === 1 ? `${count} ${unit}` : `${count} ${unit}s`;
}

const number = (n: number): string => (n === ANY ? '2⁵³−1' : String(n).replace('-', '−'));

/** A kind's words, its numbers as the README spells them. */
const words = (said: string): string => said.replaceAll(String(ANY), number(ANY));
