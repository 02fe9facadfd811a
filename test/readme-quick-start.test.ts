/**
 * The README's quick start, followed as written: its `brook serve` command (as `npx brook` runs it,
 * on a free port and a temporary data directory, the quick start's own `npm ci` being what made
 * this checkout), then its kafkajs and @platformatic/kafka snippets, each run from the checkout as
 * the README says, against that broker. The kcat snippet is followed in test/interop/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from './helpers/external.js';
import { consumeAll, kafkajs } from './helpers/kafkajs.js';
import { startServe } from './helpers/serve-process.js';
import { blockWith, quickStartServeArgs, sendAndReadSnippets } from './helpers/readme-quick-start.js';

/** What a snippet prints, run as `node hello.mjs` runs it from the checkout. */
async function runSnippet(code: string): Promise<string> {
  const r = await run(process.execPath, ['--input-type=module', '--eval', code], undefined, 60_000);
  assert.equal(r.code, 0, `the snippet failed:\n${r.stderr}`);
  return r.stdout.trim();
}

/** What a snippet's `console.log(...); // OUTPUT` line says it prints. */
function promised(code: string): string {
  const m = /^console\.log\([^)]*\); \/\/ (.*)$/m.exec(code);
  assert.ok(m !== null, `the snippet says what it prints:\n${code}`);
  return m[1]!;
}

test("the README's quick start serves a broker that its snippets send to and read from", { timeout: 120_000 }, async () => {
  const args = await quickStartServeArgs();
  assert.ok(!args.includes('--port') && !args.includes('--host'), 'the snippets connect to the address brook serve listens on by default');
  const serve = await startServe(args);
  try {
    const [kafkajsSnippet, platformaticSnippet] = await sendAndReadSnippets(serve.bootstrap).then((blocks) => [
      blockWith(blocks, "from 'kafkajs'"),
      blockWith(blocks, "import('@platformatic/kafka')"),
    ]);

    // kafkajs: sends a message and prints what its consumer read back.
    assert.equal(await runSnippet(kafkajsSnippet!.code), promised(kafkajsSnippet!.code));

    // @platformatic/kafka: prints the offset it wrote at, the third in the README (after kcat's
    // message, which this test does not send), so here the second.
    const printed = await runSnippet(platformaticSnippet!.code);
    assert.equal(
      printed,
      promised(platformaticSnippet!.code)
        .replace(/^(\[.*\]).*$/, '$1')
        .replace('offset: 2n', 'offset: 1n'),
    );

    // Both messages are in the topic.
    const read = await consumeAll(kafkajs(serve.bootstrap), 'hello', 'quick-start-check', 2);
    assert.deepEqual(
      read.map((m) => m.value),
      ['hello, brook', 'hello, brook'],
    );
  } finally {
    assert.equal(await serve.stop(), 0, serve.output());
  }
});
