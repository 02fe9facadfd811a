import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { OFFSETS_FILE, OffsetStore } from '../src/groups/offset-store.js';

async function tempFile(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'brook-offsets-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return join(dir, OFFSETS_FILE);
}

const at = (offset: bigint, partition = 0, topic = 't') => ({ topic, partition, offset, leaderEpoch: 5, metadata: `at ${offset}` });

test('commits survive reopening, int64 offsets exactly', async (t) => {
  const file = await tempFile(t);
  const store = await OffsetStore.open(file);
  await store.commit('g', [at(9_007_199_254_740_993n, 0), at(2n, 1), at(3n, 0, 'u')]);
  await store.commit('g', [at(4n, 1)]);
  await store.commit('h', [at(0n)]);
  await store.close();

  const reopened = await OffsetStore.open(file);
  assert.deepEqual(reopened.groupIds(), ['g', 'h']);
  const g = reopened.offsets('g')!;
  assert.deepEqual(g.get('t')?.get(0), { offset: 9_007_199_254_740_993n, leaderEpoch: 5, metadata: 'at 9007199254740993' });
  assert.equal(g.get('t')?.get(1)?.offset, 4n);
  assert.equal(g.get('u')?.get(0)?.offset, 3n);
  await reopened.close();
});

test('any legal name survives reopening: a group or topic named __proto__ or constructor', async (t) => {
  const file = await tempFile(t);
  const store = await OffsetStore.open(file);
  await store.commit('__proto__', [at(7n, 0, 'plain')]);
  await store.commit('g', [at(9n, 0, '__proto__'), at(3n, 1, 'constructor')]);
  await store.close();

  const reopened = await OffsetStore.open(file);
  assert.deepEqual(reopened.groupIds(), ['__proto__', 'g']);
  assert.equal(reopened.offsets('__proto__')?.get('plain')?.get(0)?.offset, 7n);
  assert.deepEqual(
    [...reopened.offsets('g')!].map(([topic, partitions]) => [topic, [...partitions.keys()]]),
    [
      ['__proto__', [0]],
      ['constructor', [1]],
    ],
  );
  await reopened.close();
});

test('a commit is visible only once written; concurrent commits all land, the last per partition winning', async (t) => {
  const file = await tempFile(t);
  const store = await OffsetStore.open(file);
  const first = store.commit('g', [at(1n)]);
  assert.equal(store.offsets('g'), undefined);
  const rest = Array.from({ length: 50 }, (_, i) => store.commit('g', [at(BigInt(i + 2), i % 4)]));
  await first;
  await Promise.all(rest);
  assert.deepEqual(
    [0, 1, 2, 3].map((p) => store.offsets('g')?.get('t')?.get(p)?.offset),
    [50n, 51n, 48n, 49n],
  );
  const onDisk = JSON.parse(await readFile(file, 'utf8')) as { groups: Record<string, Record<string, Record<string, { offset: string }>>> };
  assert.equal(onDisk.groups['g']?.['t']?.['1']?.offset, '51');
  await store.close();
});

test('a deleted group is gone after reopening; a commit after the delete starts it afresh', async (t) => {
  const file = await tempFile(t);
  const store = await OffsetStore.open(file);
  await store.commit('g', [at(1n, 0), at(1n, 1)]);
  await store.commit('h', [at(1n)]);
  const deleted = store.deleteGroup('g');
  const recommitted = store.commit('g', [at(7n, 1)]);
  await Promise.all([deleted, recommitted]);
  await store.deleteGroup('h');
  await store.close();
  const reopened = await OffsetStore.open(file);
  assert.deepEqual(reopened.groupIds(), ['g']);
  assert.deepEqual([...reopened.offsets('g')!.get('t')!.keys()], [1]);
  await reopened.close();
});

test("a deleted topic's offsets leave every group, one queued before the delete too; a group left with none goes", async (t) => {
  const file = await tempFile(t);
  const store = await OffsetStore.open(file);
  await store.commit('g', [at(1n, 0, 'gone'), at(2n, 0, 'kept')]);
  const queued = store.commit('h', [at(3n, 1, 'gone')]);
  await Promise.all([queued, store.deleteTopic('gone')]);
  const expected = [['g', [['kept', [0]]]]];
  const contents = (s: OffsetStore) => s.groupIds().map((g) => [g, [...s.offsets(g)!].map(([topic, partitions]) => [topic, [...partitions.keys()]])]);
  assert.deepEqual(contents(store), expected);
  await store.close();
  const reopened = await OffsetStore.open(file);
  assert.deepEqual(contents(reopened), expected);
  await reopened.close();
});

test('a failed write rejects its commits and changes nothing; later writes go through', async (t) => {
  const file = await tempFile(t);
  const store = await OffsetStore.open(file);
  await store.commit('g', [at(1n)]);
  await mkdir(`${file}.tmp`);
  await assert.rejects(store.commit('g', [at(2n)]));
  assert.equal(store.offsets('g')?.get('t')?.get(0)?.offset, 1n);
  await rmdir(`${file}.tmp`);
  await store.commit('g', [at(3n)]);
  assert.equal(store.offsets('g')?.get('t')?.get(0)?.offset, 3n);
  await store.close();
  await assert.rejects(store.commit('g', [at(4n)]), /closed/);
});

test('a file that is not an offsets file, or not of its form, stops the open naming the file instead of being replaced', async (t) => {
  const file = await tempFile(t);
  await writeFile(file, '{"format":"something-else","groups":{}}');
  await assert.rejects(OffsetStore.open(file), /not a brook group offsets file/);
  await writeFile(file, '{"form');
  await assert.rejects(OffsetStore.open(file), /not valid JSON/);
  for (const text of ['null', '[]']) {
    await writeFile(file, text);
    await assert.rejects(OffsetStore.open(file), /not a brook group offsets file/, text);
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
    await assert.rejects(OffsetStore.open(file), (err: Error) => err.message.startsWith(file) && /not of the form brook writes/.test(err.message), text);
  }
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
      const file = await tempFile(t);
      const store = await OffsetStore.open(file);
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
      const reopened = await OffsetStore.open(file);
      assert.deepEqual(snapshot(reopened), expected);
      await reopened.close();
    }),
    { numRuns: 25 },
  );
});
