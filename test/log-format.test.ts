/** `brook serve` logs as text for a person on a terminal and as JSON lines for a program. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BROOK_BIN } from './helpers/cli.js';
import { startListening, startServe, tempDataDir } from './helpers/serve-process.js';
import { until } from './helpers/until.js';

/** The start-up line as text: ISO time, level name, then the addresses and the data directory. */
const TEXT_BANNER = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO  listening on 127\.0\.0\.1:\d+, console on http:\/\/127\.0\.0\.1:\d+\/, data in \S+/m;

test('under a pseudo-terminal, serve logs aligned text lines with ISO times and level names', async () => {
  const dir = await tempDataDir();
  // script gives brook a terminal for its stdout; without the terminal's \r\n, lines end as piped ones do.
  const command = `stty -onlcr; exec '${process.execPath}' '${BROOK_BIN}' serve --port 0 --console-port 0 --data-dir '${dir}'`;
  const serve = await startListening('brook', ['script', '-qec', command, '/dev/null']);
  try {
    await until(() => TEXT_BANNER.test(serve.output()), 'the text banner is written');
    assert.ok(!serve.output().includes('{"level"'), serve.output());
    assert.match(serve.output(), new RegExp(`listening on 127\\.0\\.0\\.1:${serve.port}, .*data in ${dir}`));
  } finally {
    await serve.stop();
  }
});

test('piped, serve logs JSON lines; --log-format text writes text anyway', async () => {
  const json = await startServe(['--console-port', '0']);
  try {
    await until(() => json.output().includes('"msg":"listening on'), 'the JSON banner is written');
    const banner = json
      .output()
      .split('\n')
      .find((line) => line.includes('"msg":"listening on'))!;
    const parsed = JSON.parse(banner) as { level: number; dataDir: string; consolePort: number };
    assert.deepEqual([parsed.level, parsed.dataDir, typeof parsed.consolePort], [30, json.dataDir, 'number']);
    assert.doesNotMatch(json.output(), TEXT_BANNER);
  } finally {
    await json.stop();
  }
  const text = await startServe(['--console-port', '0', '--log-format', 'text']);
  try {
    await until(() => TEXT_BANNER.test(text.output()), 'the text banner is written');
  } finally {
    await text.stop();
  }
});
