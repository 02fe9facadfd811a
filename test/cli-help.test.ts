/** `brook serve --help` as read in a terminal of 80 to 120 columns. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { FLAGS, flagOf } from '../src/settings/settings.js';
import { BROOK_BIN } from './helpers/cli.js';

/** `brook ARGS --help`, in a terminal `columns` wide (under script) or piped with `$COLUMNS`. */
function help(args: readonly string[], columns: number, terminal: boolean): string {
  const command = terminal
    ? ['script', '-qec', `stty cols ${columns}; '${process.execPath}' '${BROOK_BIN}' ${args.join(' ')} --help`, '/dev/null']
    : [process.execPath, BROOK_BIN, ...args, '--help'];
  const r = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', env: { ...process.env, COLUMNS: terminal ? '' : String(columns) }, timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.replaceAll('\r\n', '\n');
}

/** The column where descriptions start beside their flags, or undefined if every description is under its flag. */
function descriptionColumn(text: string): number | undefined {
  const m = /^ {2}--port <port> +(?=\S)/m.exec(text);
  return m === null ? undefined : m[0].length;
}

for (const terminal of [false, true])
  test(`serve --help fits ${terminal ? 'a terminal' : '$COLUMNS'} of 80, 90, 100 and 120 columns, every flag in it`, () => {
    for (const columns of [80, 90, 100, 120]) {
      const text = help(['serve'], columns, terminal);
      const lines = text.split('\n');
      for (const line of lines) assert.ok(line.length <= columns, `wider than ${columns} columns:\n${line}`);
      for (const [name, s] of FLAGS) assert.match(text, new RegExp(`^ {2}${flagOf(name, s)}\\b`, 'm'), `${flagOf(name, s)} at ${columns} columns`);
      // Beside their flags the descriptions start within 34 columns, else under each flag.
      const column = descriptionColumn(text);
      if (column === undefined) assert.match(text, /^ {2}--port <port>\n {6}port to listen on/m);
      else assert.ok(column <= 34, `descriptions start at column ${column}`);
      if (columns >= 100) assert.notEqual(column, undefined, `at ${columns} columns the descriptions stand beside their flags`);
    }
  });

test('a command with short flags keeps its descriptions beside them at 80 columns', () => {
  const text = help(['producers'], 80, false);
  assert.match(text, /^ {2}--bootstrap <host:port> {2}the broker to ask/m);
});
