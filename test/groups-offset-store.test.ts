import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { OffsetStore, type StoreLog } from '../src/groups/offset-store.js';
import { encodeRecord, scanRecords } from '../src/groups/offset-records.js';
import type { OffsetChange } from '../src/groups/offset-state.js';
import type { FlushPolicy } from '../src/settings/kinds.js';
import { applyToStore, OffsetModel, offsetChange, recordingLog, storeRows } from './helpers/offset-traffic.js';
import { until } from './helpers/until.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'brook-offsets-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const open = (dir: string, options: { flush?: FlushPolicy; log?: StoreLog; compactionMinBytes?: number } = {}) =>
  OffsetStore.open(dir, { flush: 'none', log: recordingLog(), ...options });

const at = (offset: bigint, partition = 0, topic = 't') => ({ topic, partition, offset, leaderEpoch: 5, metadata: `at ${offset}` });

/** The offset files in `dir`, by kind. */
async function offsetFiles(dir: string): Promise<{ logs: string[]; snapshots: string[]; other: string[] }> {
  const names = (await readdir(dir)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return {
    logs: names.filter((n) => /^group-offsets-\d+\.log$/.test(n)),
    snapshots: names.filter((n) => /^group-offsets-\d+\.snapshot$/.test(n)),
    other: names.filter((n) => !/^group-offsets-\d+\.(log|snapshot)$/.test(n)),
  };
}

/** The changes a file holds, and what follows its intact records. */
async function recordsIn(path: string): Promise<{ changes: OffsetChange[]; problem: string | undefined }> {
  const changes: OffsetChange[] = [];
  const scan = scanRecords(await readFile(path), (c) => changes.push(c));
  return { changes, problem: scan.problem };
}

for (const flush of ['none', 'always', { intervalMs: 5 }] as const) {
  test(`commits survive reopening, int64 offsets and commit times exactly (flush ${JSON.stringify(flush)})`, async (t) => {
    const dir = await tempDir(t);
    const store = await open(dir, { flush });
    await store.commit('g', [at(9_007_199_254_740_993n, 0), at(2n, 1), at(3n, 0, 'u')], 1_700_000_000_123);
    await store.commit('g', [at(4n, 1)], 1_700_000_000_456);
    await store.commit('h', [at(0n)], 7);
    await store.close();

    const reopened = await open(dir, { flush });
    t.after(() => reopened.close());
    assert.deepEqual(reopened.groupIds(), ['g', 'h']);
    const g = reopened.offsets('g')!;
    assert.deepEqual(g.get('t')?.get(0), {
      offset: 9_007_199_254_740_993n,
      leaderEpoch: 5,
      metadata: 'at 9007199254740993',
      commitTimestamp: 1_700_000_000_123,
    });
    assert.deepEqual([g.get('t')?.get(1)?.offset, g.get('t')?.get(1)?.commitTimestamp], [4n, 1_700_000_000_456]);
    assert.equal(g.get('u')?.get(0)?.offset, 3n);
    assert.equal(reopened.offsets('h')?.get('t')?.get(0)?.commitTimestamp, 7);
  });
}

test('any legal name survives reopening: a group or topic named __proto__ or constructor, names in any script', async (t) => {
  const dir = await tempDir(t);
  const store = await open(dir);
  await store.commit('__proto__', [at(7n, 0, 'plain')]);
  await store.commit('g', [at(9n, 0, '__proto__'), at(3n, 1, 'constructor')]);
  await store.commit('グループ', [{ ...at(1n, 0, 'ü'), metadata: '😀'.repeat(1000) }]);
  await store.close();

  const reopened = await open(dir);
  t.after(() => reopened.close());
  assert.deepEqual(reopened.groupIds(), ['__proto__', 'g', 'グループ']);
  assert.equal(reopened.offsets('__proto__')?.get('plain')?.get(0)?.offset, 7n);
  assert.deepEqual(
    [...reopened.offsets('g')!].map(([topic, partitions]) => [topic, [...partitions.keys()]]),
    [
      ['__proto__', [0]],
      ['constructor', [1]],
    ],
  );
  assert.equal(reopened.offsets('グループ')?.get('ü')?.get(0)?.metadata, '😀'.repeat(1000));
});

test('a commit is visible only once written; concurrent commits all land, the last per partition winning', async (t) => {
  const dir = await tempDir(t);
  const store = await open(dir);
  const first = store.commit('g', [at(1n)]);
  assert.equal(store.offsets('g'), undefined);
  assert.ok(store.hasPending('g'));
  const rest = Array.from({ length: 50 }, (_, i) => store.commit('g', [at(BigInt(i + 2), i % 4)]));
  await first;
  await Promise.all(rest);
  assert.ok(!store.hasPending('g'));
  const expected = [50n, 51n, 48n, 49n];
  assert.deepEqual(
    [0, 1, 2, 3].map((p) => store.offsets('g')?.get('t')?.get(p)?.offset),
    expected,
  );
  await store.close();
  const reopened = await open(dir);
  t.after(() => reopened.close());
  assert.deepEqual(
    [0, 1, 2, 3].map((p) => reopened.offsets('g')?.get('t')?.get(p)?.offset),
    expected,
  );
});

test('a deleted group is gone after reopening; a commit after the delete starts it afresh', async (t) => {
  const dir = await tempDir(t);
  const store = await open(dir);
  await store.commit('g', [at(1n, 0), at(1n, 1)]);
  await store.commit('h', [at(1n)]);
  const deleted = store.deleteGroup('g');
  const recommitted = store.commit('g', [at(7n, 1)]);
  await Promise.all([deleted, recommitted]);
  await store.deleteGroup('h');
  await store.close();
  const reopened = await open(dir);
  t.after(() => reopened.close());
  assert.deepEqual(reopened.groupIds(), ['g']);
  assert.deepEqual([...reopened.offsets('g')!.get('t')!.keys()], [1]);
});

test("a deleted topic's offsets leave every group, one queued before the delete too; deleted partitions go; a group left with none goes", async (t) => {
  const dir = await tempDir(t);
  const store = await open(dir);
  await store.commit('g', [at(1n, 0, 'gone'), at(2n, 0, 'kept'), at(2n, 1, 'kept')]);
  await store.commit('k', [at(1n, 0, 'kept')]);
  const queued = store.commit('h', [at(3n, 1, 'gone')]);
  await Promise.all([
    queued,
    store.deleteTopic('gone'),
    store.deleteOffsets('g', [{ topic: 'kept', partition: 1 }]),
    store.deleteOffsets('k', [{ topic: 'kept', partition: 0 }]),
  ]);
  const expected = [['g', [['kept', [0]]]]];
  const contents = (s: OffsetStore) => s.groupIds().map((g) => [g, [...s.offsets(g)!].map(([topic, partitions]) => [topic, [...partitions.keys()]])]);
  assert.deepEqual(contents(store), expected);
  await store.close();
  const reopened = await open(dir);
  t.after(() => reopened.close());
  assert.deepEqual(contents(reopened), expected);
});

test('a change after close is refused', async (t) => {
  const store = await open(await tempDir(t));
  await store.close();
  await assert.rejects(store.commit('g', [at(4n)]), /closed/);
});

test('a group-offsets.json of an older brook is moved into the log, each offset taken as committed then, and the file removed', async (t) => {
  const dir = await tempDir(t);
  const legacy =
    '{"format":"brook-group-offsets/1","groups":{' +
    '"g":{"t":{"0":{"offset":"9007199254740993","leaderEpoch":3,"metadata":"m"},"2":{"offset":"-1","leaderEpoch":-1,"metadata":""}}},' +
    '"__proto__":{"u":{"1":{"offset":"5","leaderEpoch":0,"metadata":""}}},"nothing":{}}}';
  await writeFile(join(dir, 'group-offsets.json'), legacy);
  const before = Date.now();
  const log = recordingLog();
  const store = await open(dir, { log });
  const after = Date.now();
  assert.deepEqual(store.groupIds().sort(), ['__proto__', 'g']);
  const g = store.offsets('g')!.get('t')!;
  assert.deepEqual(
    [...g].map(([p, o]) => [p, o.offset, o.leaderEpoch, o.metadata]),
    [
      [0, 9_007_199_254_740_993n, 3, 'm'],
      [2, -1n, -1, ''],
    ],
  );
  const stamped = g.get(0)!.commitTimestamp;
  assert.ok(stamped >= before && stamped <= after, 'committed as of the move');
  assert.equal(store.offsets('__proto__')?.get('u')?.get(1)?.offset, 5n);
  assert.ok(log.lines.some((l) => l.message === 'committed offsets moved to their log'));
  await store.commit('g', [at(8n, 1)]);
  await store.close();
  assert.deepEqual(await offsetFiles(dir), { logs: ['group-offsets-0.log'], snapshots: ['group-offsets-0.snapshot'], other: [] });

  const reopened = await open(dir);
  t.after(() => reopened.close());
  assert.deepEqual(storeRows(reopened), storeRows(store));
});

test('a group-offsets.json beside offset files is what a stop left after moving it: the files hold the offsets, the JSON goes', async (t) => {
  const dir = await tempDir(t);
  const store = await open(dir);
  await store.commit('g', [at(1n)]);
  await store.close();
  await writeFile(
    join(dir, 'group-offsets.json'),
    JSON.stringify({ format: 'brook-group-offsets/1', groups: { old: { t: { '0': { offset: '1', leaderEpoch: 0, metadata: '' } } } } }),
  );
  const reopened = await open(dir);
  t.after(() => reopened.close());
  assert.deepEqual(reopened.groupIds(), ['g']);
  assert.ok(!(await readdir(dir)).includes('group-offsets.json'));
});

test('a group-offsets.json that is not of its form stops the open naming the file, and is left as it is', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'group-offsets.json');
  await writeFile(file, '{"format":"something-else","groups":{}}');
  await assert.rejects(open(dir), /not a brook group offsets file/);
  await writeFile(file, '{"form');
  await assert.rejects(open(dir), /not valid JSON/);
  for (const text of ['null', '[]']) {
    await writeFile(file, text);
    await assert.rejects(open(dir), /not a brook group offsets file/, text);
  }
  const entry = (e: string): string => `{"format":"brook-group-offsets/1","groups":{"g":{"t":{"0":${e}}}}}`;
  for (const text of [
    '{"format":"brook-group-offsets/1"}',
    '{"format":"brook-group-offsets/1","groups":{"g":[]}}',
    entry('{"offset":"1.5","leaderEpoch":0,"metadata":""}'),
    entry('{"offset":"abc","leaderEpoch":0,"metadata":""}'),
    entry('{"offset":"1","metadata":""}'),
    entry('5'),
  ]) {
    await writeFile(file, text);
    await assert.rejects(open(dir), (err: Error) => err.message.startsWith(file) && /not of the form brook writes/.test(err.message), text);
    assert.equal(await readFile(file, 'utf8'), text);
  }
  assert.deepEqual((await offsetFiles(dir)).logs, [], 'nothing written beside it');
});

test('a torn record at the log end is cut at the start and said so; every record before it is kept', async (t) => {
  const dir = await tempDir(t);
  const store = await open(dir);
  await store.commit('g', [at(1n)]);
  await store.deleteGroup('h');
  await store.close();
  const logPath = join(dir, 'group-offsets-0.log');
  const intact = (await stat(logPath)).size;
  const unacknowledged = encodeRecord({ kind: 'deleteGroup', groupId: 'g' });
  await appendFile(logPath, unacknowledged.subarray(0, unacknowledged.length - 1));
  const log = recordingLog();
  const reopened = await open(dir, { log });
  assert.equal(reopened.offsets('g')?.get('t')?.get(0)?.offset, 1n, 'the torn delete did not happen');
  assert.equal((await stat(logPath)).size, intact);
  assert.deepEqual(
    log.lines.filter((l) => l.level === 'warn').map((l) => [l.message, l.fields]),
    [
      [
        'committed offsets log cut where its intact records end',
        {
          file: logPath,
          position: intact,
          bytes: unacknowledged.length - 1,
          problem: `a record of ${unacknowledged.length - 8} bytes with ${unacknowledged.length - 9} left`,
        },
      ],
    ],
  );
  // Appends go on from where the intact records end.
  await reopened.commit('g', [at(2n)]);
  await reopened.close();
  const again = await open(dir);
  t.after(() => again.close());
  assert.equal(again.offsets('g')?.get('t')?.get(0)?.offset, 2n);
  assert.equal((await recordsIn(logPath)).problem, undefined);
});

test('a record that checks out but is not one brook writes, and a damaged snapshot, stop the open naming the file', async (t) => {
  const dir = await tempDir(t);
  const store = await open(dir);
  await store.commit('g', [at(1n)]);
  await store.close();
  const logPath = join(dir, 'group-offsets-0.log');
  const strange = encodeRecord({ kind: 'deleteGroup', groupId: 'x' });
  strange[8] = 99; // the type
  const { crc32c } = await import('../src/protocol/crc32c.js');
  strange.writeUInt32BE(crc32c(strange.subarray(8)), 4);
  await appendFile(logPath, strange);
  await assert.rejects(open(dir), new RegExp(`^Error: ${logPath}: a record at position \\d+ checks out but is not one brook writes: unknown record type 99`));

  await rm(logPath);
  const snapshotPath = join(dir, 'group-offsets-3.snapshot');
  const record = encodeRecord({ kind: 'commit', groupId: 'g', offsets: [{ ...at(1n), commitTimestamp: 1 }] });
  await writeFile(snapshotPath, record.subarray(0, record.length - 2));
  await assert.rejects(open(dir), new RegExp(`^Error: ${snapshotPath} is damaged at position 0`));
});

test(
  'a write that fails (the file size limit, mid-record) is refused, changes nothing and leaves no part of it; acknowledged changes all stay',
  { timeout: 60_000 },
  async (t) => {
    const dir = await tempDir(t);
    const limit = 48 * 1024;
    const seed = 7;
    const { acked, refused } = await runWriter(['prlimit', `--fsize=${limit}`], dir, 'none', seed, 0, 1 << 30, { failures: 20 });
    assert.ok(refused.size >= 20 && acked.size > 100, `${acked.size} acknowledged, ${refused.size} refused`);
    const log = recordingLog();
    const store = await open(dir, { log });
    t.after(() => store.close());
    assert.deepEqual(
      log.lines.filter((l) => l.level !== 'info'),
      [],
      'nothing cut: the failed writes left nothing behind',
    );
    const model = new OffsetModel();
    const end = Math.max(...acked, ...refused) + 1;
    for (let i = 0; i < end; i++) if (!refused.has(i)) model.apply(offsetChange(seed, i));
    assert.deepEqual(storeRows(store), model.rows());
    assert.ok((await stat(join(dir, 'group-offsets-0.log'))).size <= limit);
  },
);

const WRITER = new URL('./helpers/offset-writer.ts', import.meta.url).pathname;

/**
 * Runs the writer (behind `wrapper`, a command that runs another) from change `start` until it
 * exits by itself (`failures`) or has `killAfter` acknowledged (then SIGKILL); the changes it
 * acknowledged and refused.
 */
async function runWriter(
  wrapper: string[],
  dir: string,
  flush: string,
  seed: number,
  start: number,
  compactionMinBytes: number,
  until: { failures: number } | { killAfter: number; thenWaitMs: number },
): Promise<{ acked: Set<number>; refused: Set<number> }> {
  const { spawn } = await import('node:child_process');
  const args = [process.execPath, '--import', 'tsx', WRITER, dir, flush, String(seed), String(start), String(compactionMinBytes)];
  if ('failures' in until) args.push(String(until.failures));
  const [command, ...rest] = [...wrapper, ...args];
  const child = spawn(command!, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
  const acked = new Set<number>();
  const refused = new Set<number>();
  let pending = '';
  let stderr = '';
  let killing = false;
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  child.stdout.on('data', (b: Buffer) => {
    const lines = (pending + b.toString()).split('\n');
    pending = lines.pop()!;
    for (const line of lines) (line.startsWith('a ') ? acked : refused).add(Number(line.slice(2)));
    if ('killAfter' in until && !killing && acked.size >= until.killAfter) {
      killing = true;
      setTimeout(() => child.kill('SIGKILL'), until.thenWaitMs);
    }
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c, s) => resolve([c, s]));
  });
  if ('failures' in until ? code !== 0 : signal !== 'SIGKILL') throw new Error(`writer ended with ${code ?? signal}: ${stderr}`);
  return { acked, refused };
}

for (const flush of ['none', 'always']) {
  test(
    `a writer SIGKILLed at random points under load, compactions included (flush ${flush}), comes back with every acknowledged change and nothing deleted revived`,
    { timeout: 120_000 },
    async (t) => {
      const dir = await tempDir(t);
      const seed = flush === 'none' ? 11 : 12;
      const random = (await import('./helpers/seeded.js')).seeded(seed);
      const model = new OffsetModel();
      let applied = 0;
      let compacted = 0;
      for (let round = 0; round < 6; round++) {
        const { acked, refused } = await runWriter([], dir, flush, seed, applied, 4096, {
          killAfter: 50 + Math.floor(random() * 300),
          thenWaitMs: Math.floor(random() * 15),
        });
        assert.equal(refused.size, 0);
        const newest = Math.max(...acked);
        // Changes are written in the order asked: what is stored is every change up to one at or
        // after the newest acknowledged, the eight in flight at most.
        const store = await open(dir);
        const found = storeRows(store);
        await store.close();
        let matched = false;
        for (let end = newest + 1; end <= newest + 9 && !matched; end++) {
          while (applied < end) model.apply(offsetChange(seed, applied++));
          matched =
            JSON.stringify(found, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) ===
            JSON.stringify(model.rows(), (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
        }
        assert.ok(matched, `round ${round}: the stored offsets are the changes up to some point from ${newest + 1} on`);
        compacted += (await offsetFiles(dir)).snapshots.length;
      }
      assert.ok(compacted > 0, 'the log was compacted between the kills');
    },
  );
}

test('compaction keeps exactly the live offsets: one commit per group holding its offsets, nothing deleted; the log after it holds the rest', async (t) => {
  const dir = await tempDir(t);
  const log = recordingLog();
  const store = await open(dir, { log, compactionMinBytes: 2048 });
  const model = new OffsetModel();
  const seed = 3;
  const compactions = (): number => log.lines.filter((l) => l.message === 'committed offsets compacted').length;
  // At least 600 changes, and on until two compactions are through: on a busy machine one
  // compaction may take as long as hundreds of commits.
  const changes = [];
  for (let i = 0; i < 600 || (compactions() < 2 && i < 50_000); i++) {
    const change = offsetChange(seed, i);
    changes.push(change);
    await applyToStore(store, change);
    model.apply(change);
  }
  await until(async () => {
    const files = await offsetFiles(dir);
    return files.snapshots.length === 1 && files.logs.length === 1 && files.other.length === 0;
  }, 'a compaction has finished and nothing is left of the one before');
  assert.ok(compactions() > 1, 'compacted more than once');
  await store.close();

  // A compaction the close cut short leaves its log beside the one before: both hold changes after the snapshot.
  const { logs, snapshots, other } = await offsetFiles(dir);
  assert.deepEqual([snapshots.length, other], [1, []]);
  const snapshot = await recordsIn(join(dir, snapshots[0]!));
  assert.equal(snapshot.problem, undefined);
  const logged = (await Promise.all(logs.map((name) => recordsIn(join(dir, name))))).flatMap((r) => r.changes);
  // The logs hold the last changes, each as asked; the snapshot, all that came before, and only that.
  assert.deepEqual(logged, changes.slice(changes.length - logged.length));
  const before = new OffsetModel();
  for (const change of changes.slice(0, changes.length - logged.length)) before.apply(change);
  const fromSnapshot = new OffsetModel();
  for (const change of snapshot.changes) fromSnapshot.apply(change);
  assert.deepEqual(fromSnapshot.rows(), before.rows());
  assert.ok(snapshot.changes.every((c) => c.kind === 'commit'));
  const groups = snapshot.changes.map((c) => (c.kind === 'commit' ? c.groupId : ''));
  assert.deepEqual(groups.length, new Set(groups).size, 'one record per group');
  assert.equal(
    snapshot.changes.reduce((n, c) => n + (c.kind === 'commit' ? c.offsets.length : 0), 0),
    before.rows().length,
    'no offset twice, none deleted',
  );

  const reopened = await open(dir);
  t.after(() => reopened.close());
  assert.deepEqual(storeRows(reopened), model.rows());
});

test('half-written snapshots and files a snapshot made unnecessary are removed at the start', async (t) => {
  const dir = await tempDir(t);
  const store = await open(dir);
  await store.commit('g', [at(1n)]);
  await store.close();
  await mkdir(join(dir, 'unrelated'));
  await writeFile(join(dir, 'group-offsets-5.snapshot.tmp'), 'half');
  const reopened = await open(dir);
  t.after(() => reopened.close());
  assert.deepEqual(await offsetFiles(dir), { logs: ['group-offsets-0.log'], snapshots: [], other: ['unrelated'] });
});

/** A change to apply, or a stop and start of the store: clean, or with a record torn at the log end. */
type Step =
  { readonly change: OffsetChange } | { readonly restart: 'clean' } | { readonly restart: 'torn'; readonly torn: OffsetChange; readonly keep: number };

const name = fc.constantFrom('a', 'b', 'c', '__proto__', 'ü');
const plain = { noNullPrototype: true };
const partitionArb = fc.record({ topic: name, partition: fc.integer({ min: 0, max: 3 }) }, plain);
/** A commit's offsets, all taken at one time, as the store takes a commit. */
const commitArb = fc
  .tuple(
    name,
    fc.array(
      fc.record(
        {
          topic: name,
          partition: fc.integer({ min: 0, max: 3 }),
          offset: fc.bigInt({ min: -1n, max: 2n ** 63n - 1n }),
          leaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
          metadata: fc.string({ maxLength: 40 }),
        },
        plain,
      ),
      { minLength: 1, maxLength: 5 },
    ),
    fc.integer({ min: 0, max: 2 ** 50 }),
  )
  .map(([groupId, offsets, commitTimestamp]): OffsetChange => ({ kind: 'commit', groupId, offsets: offsets.map((o) => ({ ...o, commitTimestamp })) }));
const changeArb: fc.Arbitrary<OffsetChange> = fc.oneof(
  { weight: 6, arbitrary: commitArb },
  {
    weight: 2,
    arbitrary: fc.record(
      { kind: fc.constant('deleteOffsets' as const), groupId: name, partitions: fc.array(partitionArb, { minLength: 1, maxLength: 4 }) },
      plain,
    ),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteGroup' as const), groupId: name }, plain) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteTopic' as const), topic: name }, plain) },
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: changeArb.map((change) => ({ change })) },
  { weight: 1, arbitrary: fc.constant({ restart: 'clean' as const }) },
  {
    weight: 1,
    arbitrary: fc.record(
      { restart: fc.constant('torn' as const), torn: changeArb, keep: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }) },
      plain,
    ),
  },
);

test(
  'property: whatever the changes, restarts, torn ends and compactions, the store holds what a plain model of the changes holds',
  { timeout: 120_000 },
  async (t) => {
    const root = await tempDir(t);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 60 }), fc.boolean(), async (steps, concurrently) => {
        const dir = join(root, String(run++));
        await mkdir(dir);
        const model = new OffsetModel();
        let store = await open(dir, { compactionMinBytes: 256 });
        try {
          let batch: Promise<void>[] = [];
          for (const step of steps) {
            if ('change' in step) {
              model.apply(step.change);
              const written = applyToStore(store, step.change);
              if (concurrently) batch.push(written);
              else await written;
              continue;
            }
            await Promise.all(batch);
            batch = [];
            await store.close();
            if (step.restart === 'torn') {
              const { logs } = await offsetFiles(dir);
              const record = encodeRecord(step.torn);
              await appendFile(join(dir, logs.at(-1)!), record.subarray(0, Math.floor(step.keep * record.length)));
            }
            store = await open(dir, { compactionMinBytes: 256 });
            assert.deepEqual(storeRows(store), model.rows());
          }
          await Promise.all(batch);
          assert.deepEqual(storeRows(store), model.rows());
        } finally {
          await store.close();
        }
        const reopened = await open(dir);
        assert.deepEqual(storeRows(reopened), model.rows());
        await reopened.close();
      }),
      { numRuns: 150 },
    );
  },
);

test('property: every change reads back from its record as it was written', () => {
  fc.assert(
    fc.property(fc.array(changeArb, { maxLength: 10 }), (changes) => {
      const read: OffsetChange[] = [];
      const scan = scanRecords(Buffer.concat(changes.map(encodeRecord)), (c) => read.push(c));
      assert.deepEqual(scan.problem, undefined);
      assert.deepEqual(read, changes);
    }),
  );
});

test("OffsetDelete's deletions: named partitions go, the rest stay, a group left without offsets goes; so after reopening too", async (t) => {
  type Op =
    { kind: 'commit'; group: string; topic: string; partition: number; offset: bigint } | { kind: 'delete'; group: string; partitions: [string, number][] };
  const name = (...names: string[]) => fc.constantFrom(...names);
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      kind: fc.constant('commit' as const),
      group: name('g', 'h'),
      topic: name('t', 'u'),
      partition: fc.nat(2),
      offset: fc.bigInt({ min: 0n, max: 99n }),
    }),
    fc.record({
      kind: fc.constant('delete' as const),
      group: name('g', 'h', 'none'),
      partitions: fc.array(fc.tuple(name('t', 'u'), fc.nat(2)), { maxLength: 4 }),
    }),
  );
  const snapshot = (store: OffsetStore) =>
    Object.fromEntries(
      store.groupIds().map((g) => [g, [...store.offsets(g)!].flatMap(([topic, ps]) => [...ps].map(([p, c]) => `${topic}-${p}=${c.offset}`)).sort()]),
    );
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 8 }), async (ops) => {
      const dir = await tempDir(t);
      const store = await open(dir);
      const model = new Map<string, Map<string, bigint>>();
      for (const o of ops) {
        if (o.kind === 'commit') {
          await store.commit(o.group, [{ topic: o.topic, partition: o.partition, offset: o.offset, leaderEpoch: -1, metadata: '' }]);
          model.set(o.group, (model.get(o.group) ?? new Map()).set(`${o.topic}-${o.partition}`, o.offset));
        } else {
          await store.deleteOffsets(
            o.group,
            o.partitions.map(([topic, partition]) => ({ topic, partition })),
          );
          const kept = model.get(o.group);
          for (const [topic, partition] of o.partitions) kept?.delete(`${topic}-${partition}`);
          if (kept?.size === 0) model.delete(o.group);
        }
      }
      const expected = Object.fromEntries([...model].map(([g, ps]) => [g, [...ps].map(([tp, offset]) => `${tp}=${offset}`).sort()]));
      assert.deepEqual(snapshot(store), expected);
      await store.close();
      const reopened = await open(dir);
      assert.deepEqual(snapshot(reopened), expected);
      await reopened.close();
    }),
    { numRuns: 25 },
  );
});
