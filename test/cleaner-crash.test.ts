import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildBatch, type TestRecord } from './helpers/batch.js';
import { recordsOf } from './helpers/compacted-log.js';
import { seeded } from './helpers/seeded.js';
import { until } from './helpers/until.js';
import { startServe, tempDataDir, type ServeProcess } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchAllBatches } from './helpers/wire-fetch.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

const TOPIC = 'table';
const KEYS = 30;
const ROUNDS = 4;

interface Sent {
  readonly key: string;
  /** Null: a tombstone. */
  readonly value: string | null;
}

test('kill -9 at random moments while the cleaner works, then a restart: no acknowledged record lost, none revived, no swap left half done', async (t) => {
  const seed = Date.now();
  t.diagnostic(`seed ${seed}`);
  const random = seeded(seed);
  const dataDir = await tempDataDir();
  let serve: ServeProcess | undefined;
  t.after(async () => {
    await serve?.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });
  // Acknowledged records by offset; every value sent, acknowledged or not, by its text.
  const acked = new Map<number, Sent>();
  const sentValues = new Map<string, string>();
  let n = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    // The cleaner looks for work every millisecond (each segment holds some fifty batches); the
    // last start only recovers, so that what the kills left is what is read.
    serve = await startServe(round === ROUNDS ? ['--no-cleaner-enable'] : ['--cleaner-backoff-ms', '1'], dataDir);
    const client = await WireClient.connect(serve.port);
    if (round === 0) {
      await createTopic(client, TOPIC, 1, {
        'cleanup.policy': 'compact',
        'segment.bytes': '1024',
        'min.cleanable.dirty.ratio': '0.01',
        'delete.retention.ms': '0',
      });
    }
    if (round === ROUNDS) {
      client.close();
      break;
    }
    let producing = true;
    const producer = (async () => {
      while (producing) {
        const sent: Sent[] = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
          const key = `k${Math.floor(random() * KEYS)}`;
          const value = random() < 0.1 ? null : `v${n++}`;
          if (value !== null) sentValues.set(value, key);
          return { key, value };
        });
        const records: TestRecord[] = sent.map(({ key, value }) => ({ key: Buffer.from(key), value: value === null ? null : Buffer.from(value) }));
        const answer = await produceBatch(client, TOPIC, 0, buildBatch(records)).catch(() => undefined);
        if (answer === undefined) return;
        assert.equal(answer.errorCode, 0);
        sent.forEach((s, i) => acked.set(answer.baseOffset + i, s));
        // Paced, so that the log stays small enough for a cleaning to finish in each round: every
        // cleaning goes through all of its segments.
        await sleep(2);
      }
    })();
    // Killed at a random moment once a cleaning has finished: the cleaner is at work again by
    // then, as the writes go on.
    await until(() => serve!.output().includes('cleaned a compacted partition'), 'a cleaning finishes').catch((e) => {
      console.log(serve!.output().slice(-3000));
      throw e;
    });
    await sleep(random() * 500);
    await serve.stop('SIGKILL');
    producing = false;
    client.close();
    await producer;
    t.diagnostic(`kill ${round + 1} left ${(await cleaningFiles(dataDir)).join(', ') || 'no file of a cleaning'}`);
  }

  const client = await WireClient.connect(serve!.port);
  t.after(() => client.close());
  const read = new Map<number, Sent>();
  let last = -1;
  for (const batch of await fetchAllBatches(client, TOPIC, 0)) {
    for (const { offset, key, value } of recordsOf(batch)) {
      assert.ok(offset > last, `offsets grow: ${offset} after ${last}`);
      last = offset;
      if (value !== null) assert.equal(sentValues.get(value), key, `the record at ${offset} is one sent, with its key`);
      const ack = acked.get(offset);
      if (ack !== undefined) assert.deepEqual({ key, value }, ack, `the acknowledged record at ${offset}`);
      read.set(offset, { key, value });
    }
  }
  assert.ok(read.size < acked.size, `compaction removed records: ${read.size} read of ${acked.size} acknowledged`);

  // Each key's newest record read is at or after its newest acknowledged one: what came before it neither lost it nor came back.
  const newest = (records: Map<number, Sent>): Map<string, number> => {
    const out = new Map<string, number>();
    for (const [offset, { key }] of records) if (offset > (out.get(key) ?? -1)) out.set(key, offset);
    return out;
  };
  const newestRead = newest(read);
  for (const [key, offset] of newest(acked)) {
    const at = newestRead.get(key);
    if (acked.get(offset)!.value === null) assert.ok(at === undefined || at >= offset, `key ${key}: deleted at ${offset}, but its record at ${at} is read`);
    else assert.ok(at !== undefined && at >= offset, `key ${key}: its record at ${offset} is lost (newest read: ${at})`);
  }
  assert.deepEqual(await cleaningFiles(dataDir), [], 'nothing of a cleaning is left after the restart');
});

async function cleaningFiles(dataDir: string): Promise<string[]> {
  return (await readdir(join(dataDir, `${TOPIC}-0`))).filter((name) => name.endsWith('.cleaned') || name.endsWith('.swap'));
}
