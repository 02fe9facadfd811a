import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBrook } from './helpers/cli.js';

const LESSON_TRACE = [
  'producer=31 epoch=0 partition=p-0 seq=0 count=3',
  'producer=31 epoch=0 partition=p-0 seq=3 count=2',
  'producer=31 epoch=0 partition=p-0 seq=3 count=2',
  'producer=31 epoch=0 partition=p-0 seq=7 count=1',
  'producer=31 epoch=1 partition=p-0 seq=7 count=1',
  'producer=31 epoch=1 partition=p-0 seq=0 count=1',
  'producer=31 epoch=0 partition=p-0 seq=5 count=1',
].join('\n');

test("the lesson's worked trace prints exactly the lesson's replies", async () => {
  const r = await runBrook(['replay'], LESSON_TRACE + '\n');
  assert.equal(r.code, 0);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, ['OK base=0', 'OK base=3', 'DUPLICATE base=3', 'OUT_OF_ORDER', 'OUT_OF_ORDER', 'OK base=5', 'FENCED', ''].join('\n'));
});

test('--explain appends the log end and the window, as in the lesson', async () => {
  const r = await runBrook(['replay', '--explain', '-'], LESSON_TRACE);
  assert.equal(r.code, 0);
  assert.deepEqual(r.stdout.trimEnd().split('\n'), [
    'OK base=0  log_end=3  window=[0..2]  rule 1: new producer must start at sequence 0, and it does',
    'OK base=3  log_end=5  window=[0..2] [3..4]  rule 4: same epoch: expected sequence 3, and it is',
    'DUPLICATE base=3  log_end=5  window=[0..2] [3..4]  rule 4: same epoch, and a remembered batch is exactly 3..4: a duplicate, answered with its base offset 3 and not appended',
    'OUT_OF_ORDER  log_end=5  window=[0..2] [3..4]  rule 4: same epoch: expected sequence 5, got 7',
    'OUT_OF_ORDER  log_end=5  window=[0..2] [3..4]  rule 3: epoch 1 is newer than 0: the producer restarted, so it must start at sequence 0, not 7',
    'OK base=5  log_end=6  window=[0..0]  rule 3: epoch 1 is newer than 0: the producer restarted and starts at sequence 0; its old window is cleared',
    'FENCED  log_end=6  window=[0..0]  rule 2: epoch 0 is older than 1: a zombie from before the producer restarted, which must never write again',
  ]);
});

/** The rule `--explain` names for each line of `lines`, after the reply, log end and window. */
async function rulesNamed(lines: readonly string[]): Promise<string[]> {
  const r = await runBrook(['replay', '--explain'], lines.join('\n'));
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .trimEnd()
    .split('\n')
    .map((line) => {
      const [reply, , , rule] = line.split('  ');
      return `${reply}  ${rule}`;
    });
}

test('--explain, rule 1: an unknown producer must start at sequence 0', async () => {
  assert.deepEqual(await rulesNamed(['producer=5 epoch=0 partition=p seq=5 count=1', 'producer=6 epoch=2 partition=p seq=0 count=4']), [
    'OUT_OF_ORDER  rule 1: new producer must start at sequence 0, not 5: the broker has lost track of it',
    'OK base=0  rule 1: new producer must start at sequence 0, and it does',
  ]);
});

test('--explain, rule 2: an older epoch is a zombie, fenced', async () => {
  const named = await rulesNamed(['producer=5 epoch=4 partition=p seq=0 count=1', 'producer=5 epoch=3 partition=p seq=1 count=1']);
  assert.equal(named[1], 'FENCED  rule 2: epoch 3 is older than 4: a zombie from before the producer restarted, which must never write again');
});

test('--explain, rule 3: a newer epoch must start again at sequence 0', async () => {
  const named = await rulesNamed([
    'producer=5 epoch=0 partition=p seq=0 count=2',
    'producer=5 epoch=1 partition=p seq=3 count=1',
    'producer=5 epoch=1 partition=p seq=0 count=1',
  ]);
  assert.deepEqual(named.slice(1), [
    'OUT_OF_ORDER  rule 3: epoch 1 is newer than 0: the producer restarted, so it must start at sequence 0, not 3',
    'OK base=2  rule 3: epoch 1 is newer than 0: the producer restarted and starts at sequence 0; its old window is cleared',
  ]);
});

test('--explain, rule 4: a duplicate matches a remembered batch exactly; anything else must be the expected sequence', async () => {
  const named = await rulesNamed([
    'producer=5 epoch=0 partition=p seq=0 count=10',
    'producer=5 epoch=0 partition=p seq=10 count=2',
    'producer=5 epoch=0 partition=p seq=10 count=2',
    'producer=5 epoch=0 partition=p seq=10 count=3',
    'producer=5 epoch=0 partition=p seq=14 count=1',
    'producer=5 epoch=0 partition=p seq=12 count=1',
  ]);
  assert.deepEqual(named.slice(1), [
    'OK base=10  rule 4: same epoch: expected sequence 10, and it is',
    'DUPLICATE base=10  rule 4: same epoch, and a remembered batch is exactly 10..11: a duplicate, answered with its base offset 10 and not appended',
    'OUT_OF_ORDER  rule 4: same epoch: 10..12 starts as the remembered 10..11 does, but a duplicate must match exactly; expected sequence 12',
    'OUT_OF_ORDER  rule 4: same epoch: expected sequence 12, got 14',
    'OK base=12  rule 4: same epoch: expected sequence 12, and it is',
  ]);
});

test('reads a file; fields in any order, tabs, JSON lines, comments and blank lines', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'brook-replay-'));
  const file = join(dir, 'batches.txt');
  await writeFile(
    file,
    [
      '# producer 7 on two partitions',
      'count=2\tseq=0 partition=a producer=7 epoch=0',
      '',
      '{"producer":7,"epoch":0,"partition":"b","seq":0,"count":1}',
      '  { "count" : 1 , "seq":2, "partition":"a", "epoch":0, "producer":7 }  ',
      'producer=7 epoch=0 partition=a seq=2 count=1\r',
    ].join('\n'),
  );
  const r = await runBrook(['replay', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'OK base=0\nOK base=0\nOK base=2\nDUPLICATE base=2\n');
});

test('producer ids are exact beyond 2^53', async () => {
  const input = [
    'producer=9007199254740992 epoch=0 partition=p seq=0 count=1',
    'producer=9007199254740993 epoch=0 partition=p seq=5 count=1',
    'producer=9223372036854775807 epoch=0 partition=p seq=0 count=1',
    '{"producer":9007199254740993,"epoch":0,"partition":"p","seq":0,"count":1}',
    'producer=9223372036854775807 epoch=0 partition=p seq=1 count=1',
  ].join('\n');
  const r = await runBrook(['replay'], input);
  assert.equal(r.stdout, 'OK base=0\nOUT_OF_ORDER\nOK base=1\nOK base=2\nOK base=3\n');
});

test('a bad line gets an ERROR reply in its place, a message naming its line, and exit status 1', async () => {
  const lines = [
    ['producer=1 epoch=0 partition=p seq=0 count=1', 'OK base=0', undefined],
    ['producer=1 epoch=0 partition=p seq=1', "ERROR missing field 'count'", 2],
    ['producer=1 epoch=0 partition=p seq=1 count=1 color=red', "ERROR unknown field 'color'", 3],
    ['producer=1 epoch=0 epoch=0 partition=p seq=1 count=1', "ERROR field 'epoch' given twice", 4],
    ['producer=1 epoch=0 partition=p seq=1.5 count=1', "ERROR seq '1.5' is not a whole number", 5],
    ['producer=1 epoch=32768 partition=p seq=1 count=1', 'ERROR epoch 32768 is out of range 0..32767', 6],
    ['producer=9223372036854775808 epoch=0 partition=p seq=1 count=1', 'ERROR producer 9223372036854775808 is out of range 0..9223372036854775807', 7],
    ['producer=-1 epoch=0 partition=p seq=1 count=1', 'ERROR producer -1 is out of range 0..9223372036854775807', 8],
    ['producer=1 epoch=0 partition=p seq=2147483648 count=1', 'ERROR seq 2147483648 is out of range 0..2147483647', 9],
    ['producer=1 epoch=0 partition=p seq=1 count=0', 'ERROR count 0 is out of range 1..2147483647', 10],
    ['producer=1 epoch=0 partition= seq=1 count=1', 'ERROR partition must be a non-empty name without spaces', 11],
    ['{"producer":1,"epoch":0,"partition":"p","seq":1,"count":1', undefined, 12],
    ['{"producer":1,"epoch":0,"partition":"p","seq":1,"count":1,"seq":1}', "ERROR field 'seq' given twice", 13],
    ['{"producer":"1","epoch":0,"partition":"p","seq":1,"count":1}', "ERROR field 'producer' must be a JSON number", 14],
    ['{"producer":1,"epoch":0,"partition":"p","seq":1e0,"count":1}', "ERROR seq '1e0' is not a whole number", 15],
    ['hello', "ERROR 'hello' is not a field=value pair", 16],
    ['producer=1 epoch=0 partition=p seq=1 count=1', 'OK base=1', undefined],
  ] as const;
  const r = await runBrook(['replay'], lines.map((l) => l[0]).join('\n'));
  assert.equal(r.code, 1);
  const replies = r.stdout.trimEnd().split('\n');
  assert.equal(replies.length, lines.length, 'one reply per batch line');
  const errors = r.stderr.trimEnd().split('\n');
  let e = 0;
  lines.forEach(([, reply, lineNo], i) => {
    if (reply === undefined) assert.match(replies[i]!, /^ERROR broken JSON/);
    else assert.equal(replies[i], reply);
    if (lineNo !== undefined) {
      assert.equal(errors[e], `line ${lineNo}: ${replies[i]!.slice('ERROR '.length)}`);
      e++;
    }
  });
  assert.equal(errors.length, e);
});

test('a missing file is a clear error, not a stack trace', async () => {
  const r = await runBrook(['replay', '/nonexistent/batches.txt']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^brook replay: cannot read \/nonexistent\/batches.txt: ENOENT/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('streams a large input: one reply per line, in order', async () => {
  const n = 200_000;
  const parts: string[] = [];
  // Producer i%3 on partition p(i%7): each pair recurs every 21 lines, so its sequence is floor(i/21).
  for (let i = 0; i < n; i++) parts.push(`producer=${i % 3} epoch=0 partition=p${i % 7} seq=${Math.floor(i / 21)} count=1`);
  const r = await runBrook(['replay'], parts.join('\n'));
  assert.equal(r.code, 0);
  const replies = r.stdout.split('\n');
  assert.equal(replies.length, n + 1);
  assert.ok(replies.slice(0, n).every((line) => line.startsWith('OK ')));
  assert.equal(replies[n - 1], `OK base=${Math.floor((n - 1) / 7)}`);
});
