/**
 * The README's table of the Kafka APIs brook serves, per `--kafka-version` profile, made from the
 * API table (src/broker/api-table.ts) and the releases' tables (src/protocol/kafka-releases.ts)
 * between marker comments.
 */
import type { ApiHandler } from '../src/broker/api-handler.js';
import { buildApiTable } from '../src/broker/api-table.js';
import { releaseApis, KAFKA_VERSIONS, RELEASE_SOURCES } from '../src/protocol/kafka-releases.js';
import { apiName } from '../src/protocol/messages/api-name.js';
import { DEFAULT_CONFIG } from '../src/settings/settings.js';

export function withApisTable(readme: string): string {
  const begin = '<!-- begin apis: made from src/broker/api-table.ts and src/protocol/kafka-releases.ts by npm run gen:readme -->\n';
  const end = '<!-- end apis -->';
  const from = readme.indexOf(begin);
  const to = readme.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`README.md has no "${begin.trim()}" ... "${end}" to put the APIs table between`);
  return readme.slice(0, from + begin.length) + apisTable() + readme.slice(to);
}

const range = (min: number, max: number): string => (min === max ? `${min}` : `${min}–${max}`);

function cell(handler: ApiHandler | undefined, kafka: { minVersion: number; maxVersion: number } | undefined): string {
  if (handler === undefined) return kafka === undefined ? '' : `— (Kafka ${range(kafka.minVersion, kafka.maxVersion)})`;
  const advertised = handler.advertisedMinVersion ?? handler.minVersion;
  let text = range(advertised, handler.maxVersion);
  if (advertised < handler.minVersion) text += ` §`;
  if (kafka !== undefined && (kafka.minVersion < handler.minVersion || kafka.maxVersion > handler.maxVersion)) {
    text += ` (Kafka ${range(kafka.minVersion, kafka.maxVersion)})`;
  }
  return text;
}

function apisTable(): string {
  const tables = KAFKA_VERSIONS.map((v) => buildApiTable(undefined, v));
  const keys = [...new Set([...tables.flatMap((t) => [...t.keys()]), ...KAFKA_VERSIONS.flatMap((v) => releaseApis(v).map((a) => a.apiKey))])].sort(
    (a, b) => a - b,
  );
  const head = ['API', ...KAFKA_VERSIONS.map((v) => `${v} (${RELEASE_SOURCES[v].release}${v === DEFAULT_CONFIG.kafkaVersion ? ', default' : ''})`)];
  const rows = keys.map((key) => {
    const mark = tables.some((t) => t.get(key)?.featureOff === true) ? ' †' : tables.some((t) => t.get(key)?.withoutSasl === true) ? ' ‡' : '';
    const kafkaName = KAFKA_VERSIONS.map((v) => releaseApis(v).find((a) => a.apiKey === key)?.name)
      .reverse()
      .find((n) => n !== undefined);
    const name = tables.some((t) => t.has(key)) ? apiName(key) : kafkaName;
    const cells = KAFKA_VERSIONS.map((v, i) =>
      cell(
        tables[i]!.get(key),
        releaseApis(v).find((a) => a.apiKey === key),
      ),
    );
    return [`${name ?? apiName(key)} (${key})${mark}`, ...cells];
  });
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |\n`;
  return line(head) + line(head.map(() => '---')) + rows.map(line).join('');
}
