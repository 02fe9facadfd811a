import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { run, runPython } from '../helpers/external.js';
import { LineProcess } from '../helpers/line-process.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';

let serve: ServeProcess;
before(async () => {
  serve = await startServe(['--partitions', '3']);
});
after(async () => {
  await serve.stop();
  await rm(serve.dataDir, { recursive: true, force: true });
});

/** Every value once, and per partition in offset order with no gaps. */
function assertExactlyOnce(read: [number, number, string][], expected: string[]): void {
  assert.deepEqual(read.map((r) => r[2]).sort(), [...expected].sort());
  const byPartition = new Map<number, number[]>();
  for (const [p, offset] of read) byPartition.set(p, [...(byPartition.get(p) ?? []), offset]);
  for (const offsets of byPartition.values())
    assert.deepEqual(
      offsets,
      offsets.map((_, i) => i),
    );
}

test('kcat: idempotent produce and read back', async () => {
  const lines = Array.from({ length: 500 }, (_, i) => `line-${i}`);
  const produced = await run('kcat', ['-P', '-b', serve.bootstrap, '-t', 'kcat-topic', '-X', 'enable.idempotence=true', '-p', '0'], lines.join('\n') + '\n');
  assert.equal(produced.code, 0, produced.stderr);
  const consumed = await run('kcat', ['-C', '-b', serve.bootstrap, '-t', 'kcat-topic', '-p', '0', '-o', 'beginning', '-e', '-f', '%o %s\\n']);
  assert.equal(consumed.code, 0, consumed.stderr);
  const read = consumed.stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split(' '));
  assert.deepEqual(
    read.map((r) => r[1]),
    lines,
  );
  assert.deepEqual(
    read.map((r) => Number(r[0])),
    lines.map((_, i) => i),
  );
});

test('confluent-kafka: topic created by the admin client; idempotent produce over 4 partitions, read back exactly once', async () => {
  const count = 5000;
  const r = await LineProcess.python<{ unflushed: number; errors: string[]; acked: [number, number, string][]; read: [number, number, string][] }>(
    'confluent_produce_consume.py',
    [serve.bootstrap, 'confluent-topic', 4, count],
  ).finish();
  assert.deepEqual(r.errors, []);
  assert.equal(r.unflushed, 0);
  assert.equal(r.acked.length, count);
  assertExactlyOnce(
    r.read,
    Array.from({ length: count }, (_, i) => `m${i}`),
  );
});

test('kafka-python: topic created by the admin client; plain produce, read back', async () => {
  const count = 1000;
  const r = await runPython<{ acked: [number, number][]; read: [number, number, string][] }>('kafka_python_plain.py', [
    serve.bootstrap,
    'kafka-python-topic',
    2,
    count,
  ]);
  assert.equal(r.acked.length, count);
  assertExactlyOnce(
    r.read,
    Array.from({ length: count }, (_, i) => `m${i}`),
  );
});
