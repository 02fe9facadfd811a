/** The offset store over a real `__consumer_offsets` in a temp directory: what it holds after reopening, and the move of older files into it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import type { OffsetStore } from '../src/groups/offset-store.js';
import { openOffsetsTopic } from '../src/groups/offsets-topic.js';
import { closeAtEnd, tempDir } from './helpers/log.js';
import { openOffsetsLog } from './helpers/offsets-log.js';
import { writeLegacyOffsetsFile, writeOldOffsetLog } from './helpers/old-offset-files.js';
import { crc32c } from '../src/protocol/crc32c.js';
import { applyToStore, OffsetModel, offsetChange, recordingLog, storeRows } from './helpers/offset-traffic.js';

type Context = Parameters<typeof tempDir>[0];

/** The store over `dir`, closed with its topic's storage at the end of the test. */
async function open(t: Context, dir: string, log = recordingLog()): Promise<OffsetStore> {
  const offsets = await openOffsetsLog(dir);
  let store: OffsetStore;
  try {
    ({ offsets: store } = await openOffsetsTopic(dir, offsets.log, { report: log, now: Date.now, onGroupError: () => {} }));
  } catch (err) {
    await offsets.close();
    throw err;
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await store.close();
    await offsets.close();
  };
  return closeAtEnd(t, Object.assign(store, { close }));
}

for (const seed of [1, 2, 3]) {
  test(`a sequence of commits and deletions (seed ${seed}) reads back after reopening as a plain model holds it`, async (t) => {
    const dir = await tempDir(t);
    const model = new OffsetModel();
    const store = await open(t, dir);
    for (let i = 0; i < 300; i++) {
      const change = offsetChange(seed, i);
      await applyToStore(store, change);
      model.apply(change);
    }
    assert.deepEqual(storeRows(store), model.rows(), 'as the model holds them, before reopening');
    await store.close();
    assert.deepEqual(storeRows(await open(t, dir)), model.rows(), 'and after');
  });
}

test('concurrent commits all land, the last asked per partition winning; a change after close is refused', async (t) => {
  const dir = await tempDir(t);
  const store = await open(t, dir);
  const commits = Array.from({ length: 40 }, (_, i) =>
    store.commit('g', [{ topic: i % 2 === 0 ? '__proto__' : 'constructor', partition: i % 3, offset: BigInt(i), leaderEpoch: -1, metadata: 'ü' }], 1000 + i),
  );
  assert.ok(store.hasPending('g'));
  await Promise.all(commits);
  assert.ok(!store.hasPending('g'));
  const rows = storeRows(store);
  await store.close();
  await assert.rejects(store.commit('g', [{ topic: 't', partition: 0, offset: 1n, leaderEpoch: -1, metadata: '' }]));
  assert.deepEqual(storeRows(await open(t, dir)), rows);
  assert.deepEqual(
    rows.map((r) => [r[1], r[2], r[3]]),
    [
      ['__proto__', 0, 36n],
      ['__proto__', 1, 34n],
      ['__proto__', 2, 38n],
      ['constructor', 0, 39n],
      ['constructor', 1, 37n],
      ['constructor', 2, 35n],
    ],
  );
});

test('a group-offsets.json of an older brook is moved into the topic, each offset taken as committed then, and the file removed', async (t) => {
  const dir = await tempDir(t);
  await writeLegacyOffsetsFile(dir, {
    a: [
      { topic: 't', partition: 0, offset: 5n, leaderEpoch: 1, metadata: 'm' },
      { topic: 't', partition: 1, offset: 2n ** 62n, leaderEpoch: -1, metadata: '' },
    ],
    ['__proto__']: [{ topic: 'u', partition: 3, offset: 7n, leaderEpoch: -1, metadata: '' }],
  });
  const before = Date.now();
  const log = recordingLog();
  const store = await open(t, dir, log);
  const rows = storeRows(store);
  assert.deepEqual(
    rows.map((r) => r.slice(0, 6)),
    [
      ['__proto__', 'u', 3, 7n, -1, ''],
      ['a', 't', 0, 5n, 1, 'm'],
      ['a', 't', 1, 2n ** 62n, -1, ''],
    ],
  );
  for (const r of rows) assert.ok(r[6] >= before && r[6] <= Date.now());
  assert.ok(!(await readdir(dir)).some((n) => n.startsWith('group-offsets')), 'the file and the marker are gone');
  assert.ok(log.lines.some((l) => l.message.includes('moved into __consumer_offsets')));
  await store.close();
  assert.deepEqual(storeRows(await open(t, dir)), rows, 'read back from the topic alone');
});

test('a group-offsets.json that is not of its form stops the open naming the file, and is left as it is', async (t) => {
  const dir = await tempDir(t);
  const file = `${dir}/group-offsets.json`;
  for (const text of ['{', '{"format":"other"}', '{"format":"brook-group-offsets/1","groups":{"g":{"t":{"x":{}}}}}']) {
    await writeFile(file, text);
    await assert.rejects(open(t, dir), (err: Error) => err.message.includes(file));
    assert.equal(await readFile(file, 'utf8'), text);
  }
});

test("an earlier brook's offset log cut short by a crash is moved in up to its last whole record; one not of brook's form stops the open, naming it", async (t) => {
  const dir = await tempDir(t);
  const commit = (groupId: string, offset: bigint) => ({
    kind: 'commit' as const,
    groupId,
    offsets: [{ topic: 't', partition: 0, offset, leaderEpoch: -1, metadata: '', commitTimestamp: 1000 }],
  });
  await writeOldOffsetLog(dir, [commit('a', 1n), commit('b', 2n), commit('a', 3n)]);
  const file = `${dir}/group-offsets-0.log`;
  const whole = await readFile(file);
  await writeFile(file, whole.subarray(0, whole.length - 3));
  const store = await open(t, dir);
  assert.deepEqual(
    storeRows(store).map((r) => [r[0], r[3]]),
    [
      ['a', 1n],
      ['b', 2n],
    ],
  );
  assert.deepEqual(await readdir(dir).then((names) => names.filter((n) => n.startsWith('group-offsets'))), []);

  const other = await tempDir(t);
  // A record whose frame checks out but whose type brook never wrote.
  const body = Buffer.from([9, 1, 0x61]);
  const frame = Buffer.alloc(8 + body.length);
  frame.writeUInt32BE(body.length, 0);
  frame.writeUInt32BE(crc32c(body), 4);
  body.copy(frame, 8);
  await writeFile(`${other}/group-offsets-0.log`, frame);
  await assert.rejects(open(t, other), (err: Error) => err.message.includes('group-offsets-0.log'));
  assert.deepEqual(await readFile(`${other}/group-offsets-0.log`), frame, 'left as it is');
});
