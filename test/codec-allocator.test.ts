import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const COMPRESSION = new URL('../src/protocol/compression.ts', import.meta.url).href;

/** The purge delay each codec library's allocator (mimalloc) took when compression.ts loaded it, as it prints them when verbose. */
function purgeDelays(env: Record<string, string>): string[] {
  const { MIMALLOC_PURGE_DELAY: _, ...inherited } = process.env;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `await import(${JSON.stringify(COMPRESSION)});`], {
    env: { ...inherited, MIMALLOC_VERBOSE: '1', ...env },
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  return [...child.stderr.matchAll(/option 'purge_delay': (\d+)/g)].map((m) => m[1]!);
}

test("the codecs' allocators give freed memory back at once, as loaded by compression.ts", () => {
  assert.deepEqual(purgeDelays({}), ['0', '0'], 'lz4-napi and snappy each carry one');
});

test('a purge delay the operator set is kept', () => {
  assert.deepEqual(purgeDelays({ MIMALLOC_PURGE_DELAY: '25' }), ['25', '25']);
});
