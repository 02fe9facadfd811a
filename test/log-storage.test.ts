import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DurableJsonFile } from '../src/files/durable-file.js';
import { PartitionLog } from '../src/log/partition-log.js';
import { ProducerEpochs } from '../src/log/producer-epochs.js';
import { Storage, TopicExistsError } from '../src/log/storage.js';
import { appendAll, batch, closeAtEnd, crashImage, openLog, readAll, tempDir } from './helpers/log.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('topics, their ids and their data survive a reopen', async (t) => {
  const dataDir = await tempDir(t);
  const storage = closeAtEnd(t, await Storage.open(dataDir));
  const orders = await storage.createTopic('orders', 3);
  await storage.createTopic('a.b-c_1', 1);
  assert.match(orders.topicId, UUID);
  const b = batch(2);
  storage.partition('orders', 1)!.append(b.bytes, b.header, Date.now());
  const topics = storage.topics();
  const clusterId = storage.clusterId;
  await storage.close();

  const reopened = closeAtEnd(t, await Storage.open(dataDir));
  assert.deepEqual(reopened.topics(), topics);
  assert.equal(reopened.clusterId, clusterId);
  assert.equal(reopened.partition('orders', 3), undefined);
  assert.deepEqual(await readAll(reopened.partition('orders', 1)!), [b.bytes]);
  assert.equal(reopened.partition('orders', 0)!.logEndOffset, 0);
});

test('topic names are checked and taken only once', async (t) => {
  const storage = closeAtEnd(t, await Storage.open(await tempDir(t)));
  await storage.createTopic('t', 1);
  await assert.rejects(storage.createTopic('t', 2), TopicExistsError);
  for (const bad of ['', '..', 'a/b', '../etc', 'x'.repeat(250), 'sp ace']) await assert.rejects(storage.createTopic(bad, 1), RangeError, bad);
  await assert.rejects(storage.createTopic('u', 0), RangeError);
  const both = await Promise.allSettled([storage.createTopic('race', 1), storage.createTopic('race', 1)]);
  assert.deepEqual(both.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
});

test('a deleted topic is gone with its directories, also after a reopen; the name can be used again', async (t) => {
  const dataDir = await tempDir(t);
  const storage = closeAtEnd(t, await Storage.open(dataDir));
  const first = await storage.createTopic('gone', 2);
  const b = batch(1);
  storage.partition('gone', 0)!.append(b.bytes, b.header, Date.now());
  await storage.deleteTopic('gone');
  assert.equal(storage.topic('gone'), undefined);
  assert.equal(storage.partition('gone', 0), undefined);
  assert.deepEqual(
    (await readdir(dataDir)).filter((n) => n.startsWith('gone')),
    [],
  );
  await storage.close();

  const reopened = closeAtEnd(t, await Storage.open(dataDir));
  assert.deepEqual(reopened.topics(), []);
  const again = await reopened.createTopic('gone', 1);
  assert.notEqual(again.topicId, first.topicId);
  assert.equal(reopened.partition('gone', 0)!.logEndOffset, 0);
});

test('a partition directory no topic owns is removed at start; one without metadata refuses to start', async (t) => {
  const dataDir = await tempDir(t);
  await (await Storage.open(dataDir)).close();
  await mkdir(join(dataDir, 'ghost-0'));
  await writeFile(join(dataDir, 'ghost-0', '00000000000000000000.log'), 'x');
  const storage = closeAtEnd(t, await Storage.open(dataDir));
  await storage.close();
  assert.deepEqual(
    (await readdir(dataDir)).filter((n) => n.startsWith('ghost')),
    [],
  );

  const orphan = await tempDir(t);
  await mkdir(join(orphan, 'orders-0'));
  await assert.rejects(Storage.open(orphan), /no metadata.json/);
});

test("directories named like partitions that hold files brook does not write are the user's: left alone, with or without metadata", async (t) => {
  const dataDir = await tempDir(t);
  await mkdir(join(dataDir, 'backup-2024', 'photos'), { recursive: true });
  await writeFile(join(dataDir, 'backup-2024', 'notes.txt'), 'mine');
  await mkdir(join(dataDir, 'not a topic-1'));
  await writeFile(join(dataDir, 'not a topic-1', '00000000000000000000.log'), '');
  await (await Storage.open(dataDir)).close();
  const storage = closeAtEnd(t, await Storage.open(dataDir));
  await storage.close();
  assert.deepEqual((await readdir(dataDir)).filter((n) => !n.endsWith('.json')).sort(), ['backup-2024', 'not a topic-1']);
  assert.deepEqual((await readdir(join(dataDir, 'backup-2024'))).sort(), ['notes.txt', 'photos']);

  // Nor does creating a topic of that name remove them.
  const storage2 = closeAtEnd(t, await Storage.open(dataDir));
  await assert.rejects(storage2.createTopic('backup', 2025), /backup-2024 holds notes.txt, which brook does not write/);
  assert.deepEqual((await readdir(join(dataDir, 'backup-2024'))).sort(), ['notes.txt', 'photos']);
  assert.equal(storage2.topic('backup'), undefined);
  assert.deepEqual(
    (await readdir(dataDir)).filter((n) => n.startsWith('backup-')),
    ['backup-2024'],
    'no partition of it is made',
  );
});

test('metadata and producer id files of another shape refuse the start, naming the file', async (t) => {
  const shapes: [string, string][] = [
    ['metadata.json', '{"version":1,"clusterId":"c"}'],
    ['metadata.json', '{"version":1,"clusterId":"c","topics":[{"name":"t","topicId":"x","partitions":0}]}'],
    ['metadata.json', '[]'],
    ['producer-ids.json', '{}'],
    ['producer-ids.json', '{"version":1,"nextBlockStart":"1.5"}'],
    ['producer-epochs.json', '{"version":1,"epochs":{"7":"x"}}'],
  ];
  for (const [file, text] of shapes) {
    const dataDir = await tempDir(t);
    await (await Storage.open(dataDir)).close();
    await writeFile(join(dataDir, file), text);
    const open = file === 'producer-epochs.json' ? ProducerEpochs.open(dataDir, 60_000, Date.now()) : Storage.open(dataDir);
    await assert.rejects(open, (err: Error) => err.message.includes(join(dataDir, file)) && /not of the form/.test(err.message), `${file}: ${text}`);
  }
});

test('a file named with an offset past 2^53 is not taken for a segment or a snapshot', async (t) => {
  const dataDir = await tempDir(t);
  const storage = await Storage.open(dataDir);
  await storage.createTopic('t', 1);
  const b = batch(3);
  storage.partition('t', 0)!.append(b.bytes, b.header, Date.now());
  await storage.close();
  for (const name of ['12345678901234567000.log', '99999999999999999999.log', '12345678901234567000.snapshot']) {
    await writeFile(join(dataDir, 't-0', name), 'stray');
  }
  const reopened = closeAtEnd(t, await Storage.open(dataDir));
  assert.deepEqual(await readAll(reopened.partition('t', 0)!), [b.bytes]);
});

test('producer ids start at 1, never repeat, and are never reused after a restart, clean or not', async (t) => {
  const dataDir = await tempDir(t);
  const storage = closeAtEnd(t, await Storage.open(dataDir));
  const ids: bigint[] = [];
  for (let i = 0; i < 1500; i++) ids.push(await storage.nextProducerId());
  assert.equal(ids[0], 1n);
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]!));
  assert.ok(storage.producerIdIssued(ids[1499]!) && !storage.producerIdIssued(0n) && !storage.producerIdIssued(ids[1499]! + 1n));

  // A second start without the first having closed, as after a kill -9.
  const crashed = closeAtEnd(t, await Storage.open(dataDir));
  const after = await crashed.nextProducerId();
  assert.ok(after > ids[1499]!, `${after} comes after ${ids[1499]}`);
  await storage.close();
  await crashed.close();
  const clean = closeAtEnd(t, await Storage.open(dataDir));
  assert.ok((await clean.nextProducerId()) > after);
});

test('under flush always whenWritten resolves once the batch is on disk', async (t) => {
  const dataDir = await tempDir(t);
  const storage = closeAtEnd(t, await Storage.open(dataDir, { flush: 'always' }));
  await storage.createTopic('durable', 1);
  const log = storage.partition('durable', 0)!;
  const batches = [batch(1), batch(2), batch(3)];
  const written = batches.map((b) => log.whenWritten(appendAll(log, [b])[0]!));
  assert.equal(log.highWatermark, 0);
  await Promise.all(written);
  assert.equal(log.highWatermark, 6);
  const image = await crashImage(join(dataDir, 'durable-0'), t);
  const fresh = await openLog(t, image);
  assert.deepEqual(
    await readAll(fresh),
    batches.map((b) => b.bytes),
  );
  assert.ok(fresh instanceof PartitionLog);
});

test('a durable JSON file keeps the last write, leaves no temp file, and refuses a damaged file', async (t) => {
  const dir = await tempDir(t);
  const file = new DurableJsonFile(join(dir, 'offsets.json'), (v): v is { n: number } => typeof (v as { n?: unknown } | null)?.n === 'number');
  assert.equal(await file.read(), undefined);
  await Promise.all([1, 2, 3].map((n) => file.write({ n })));
  assert.deepEqual(await file.read(), { n: 3 });
  assert.deepEqual(await readdir(dir), ['offsets.json']);
  await writeFile(file.path, '{"n": ');
  await assert.rejects(file.read(), /not valid JSON/);
  await writeFile(file.path, '{"n": "3"}');
  await assert.rejects(file.read(), /not of the form brook writes/);
});

test('a partition directory gone while brook was stopped is made again empty, with a warning naming it', async (t) => {
  const dataDir = await tempDir(t);
  const storage = await Storage.open(dataDir);
  await storage.createTopic('orders', 2);
  const b = batch(2);
  storage.partition('orders', 1)!.append(b.bytes, b.header, Date.now());
  await storage.close();
  await rm(join(dataDir, 'orders-1'), { recursive: true });
  const warnings: string[] = [];
  const logger = { info() {}, warn: (fields: Record<string, unknown>, msg: string) => warnings.push(`${msg} ${String(fields.dir)}`) };
  const reopened = closeAtEnd(t, await Storage.open(dataDir, { logger }));
  assert.equal(reopened.partition('orders', 1)!.logEndOffset, 0);
  assert.deepEqual(warnings, [`a partition directory is missing: the partition starts empty, what it held is lost ${join(dataDir, 'orders-1')}`]);
});

test('a start that fails on one partition closes the partitions it opened', async (t) => {
  const dataDir = await tempDir(t);
  const storage = await Storage.open(dataDir);
  await storage.createTopic('first', 3);
  await storage.createTopic('second', 1);
  await storage.close();
  // A segment file that is a directory: that partition cannot be opened.
  await rm(join(dataDir, 'second-0'), { recursive: true });
  await mkdir(join(dataDir, 'second-0', '00000000000000000000.log'), { recursive: true });
  const openFiles = async () => (await readdir('/proc/self/fd')).length;
  const before = await openFiles();
  await assert.rejects(Storage.open(dataDir), /EISDIR/);
  assert.equal(await openFiles(), before, 'the three partitions of the first topic were closed');
});
