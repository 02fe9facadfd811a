/**
 * Log lines for a person on a terminal: pino's JSON lines rewritten as aligned text, with the time
 * in ISO form and the level by name, the other fields after the message as key=value.
 */
import { pino } from 'pino';

/** The fields every pino line has, shown in the line's own columns rather than after it. */
const OWN = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** One JSON log line as text (a line that is not JSON passes unchanged). */
export function textLogLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = (pino.levels.labels[Number(entry.level)] ?? String(entry.level)).toUpperCase();
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString() : '';
  const fields = Object.entries(entry)
    .filter(([key, value]) => !OWN.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return `${[time, level.padEnd(5), String(entry.msg ?? ''), ...fields].join(' ').trimEnd()}\n`;
}

/** A pino destination that writes each line to `out` as text. */
export function textLogDestination(out: { write(text: string): unknown }): pino.DestinationStream {
  return { write: (line: string) => void out.write(textLogLine(line)) };
}
