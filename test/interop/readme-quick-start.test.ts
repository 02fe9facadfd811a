/** The README's quick start with kcat, followed as written against `brook serve` on a free port. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../helpers/external.js';
import { startServe } from '../helpers/serve-process.js';
import { blockWith, quickStartServeArgs, sendAndReadSnippets } from '../helpers/readme-quick-start.js';

test("the README's kcat lines send a message and print it back", async () => {
  const serve = await startServe(await quickStartServeArgs());
  try {
    const kcat = blockWith(await sendAndReadSnippets(serve.bootstrap), 'kcat ');
    const r = await run('bash', ['-euo', 'pipefail', '-c', kcat.code], undefined, 60_000);
    assert.equal(r.code, 0, r.stderr);
    const promised = /# prints (.*) and exits$/m.exec(kcat.code);
    assert.ok(promised !== null, 'the README says what kcat prints');
    assert.equal(r.stdout, `${promised[1]}\n`);
  } finally {
    assert.equal(await serve.stop(), 0, serve.output());
  }
});
