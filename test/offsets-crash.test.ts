/**
 * Committed offsets across `kill -9` of `brook serve`: every commit answered is read back after
 * the restart, from __consumer_offsets; and the move of an earlier brook's offset files into it,
 * killed at any point, leaves the old form or the new.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../src/protocol/messages/offset-fetch.js';
import type { OffsetChange } from '../src/groups/offset-state.js';
import { BROOK_BIN } from './helpers/cli.js';
import { writeOldOffsetLog } from './helpers/old-offset-files.js';
import { seeded } from './helpers/seeded.js';
import { startServe, tempDataDir, type ServeProcess } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';
import { adminCommit } from './helpers/wire-commit.js';

const PARTITIONS = 4;

function commit(c: WireClient, groupId: string, partition: number, offset: number): Promise<number> {
  return c
    .request(OffsetCommitRequest, OffsetCommitResponse, 8, adminCommit(groupId, 't', [partition], BigInt(offset), 'm'))
    .then((r) => r.topics[0]!.partitions[0]!.errorCode);
}

async function committed(c: WireClient, groupId: string): Promise<number[]> {
  const r = await c.request(OffsetFetchRequest, OffsetFetchResponse, 7, {
    groupId,
    topics: [{ name: 't', partitionIndexes: Array.from({ length: PARTITIONS }, (_, i) => i) }],
    groups: [],
    requireStable: false,
  });
  assert.equal(r.errorCode, ErrorCode.NONE);
  return r.topics[0]!.partitions.map((p) => Number(p.committedOffset));
}

for (const flush of ['none', 'always']) {
  test(
    `brook serve SIGKILLed at random points while groups commit (--flush ${flush}): every answered commit is there after the restart`,
    { timeout: 180_000 },
    async (t) => {
      const random = seeded(flush === 'none' ? 21 : 22);
      const groups = Array.from({ length: 12 }, (_, i) => `group-${i}`);
      // group/partition → the offset of the last commit answered, and of every commit sent.
      const answered = new Map<string, number>();
      const sent = new Map<string, Set<number>>();
      let serve: ServeProcess = await startServe(['--flush', flush]);
      t.after(() => serve.stop('SIGKILL'));
      const admin = await WireClient.connect(serve.port);
      await createTopic(admin, 't', PARTITIONS);
      admin.close();
      let next = 1;
      for (let round = 0; round < 4; round++) {
        let stopping = false;
        let answeredThisRound = 0;
        let firstAnswer!: () => void;
        const answering = new Promise<void>((resolve) => (firstAnswer = resolve));
        // A connection each, and each group's commits from one connection only, one at a time:
        // a group's commits then reach the log in the order sent, so its offsets only grow there.
        const clients = await Promise.all(Array.from({ length: 6 }, () => WireClient.connect(serve.port)));
        const writer = async (c: WireClient, w: number): Promise<void> => {
          const own = groups.filter((_, i) => i % clients.length === w);
          while (!stopping) {
            const groupId = own[Math.floor(random() * own.length)]!;
            const partition = Math.floor(random() * PARTITIONS);
            const key = `${groupId}/${partition}`;
            const offset = next++;
            let offsets = sent.get(key);
            if (offsets === undefined) sent.set(key, (offsets = new Set()));
            offsets.add(offset);
            const errorCode = await commit(c, groupId, partition, offset).catch(() => undefined);
            if (errorCode === undefined) return; // the broker is gone
            assert.equal(errorCode, ErrorCode.NONE);
            if (offset > (answered.get(key) ?? 0)) answered.set(key, offset);
            if (answeredThisRound++ === 0) firstAnswer();
          }
        };
        const writers = clients.map(writer);
        // Killed once commits are being answered (the first creates __consumer_offsets), at a random point after.
        await Promise.race([answering, Promise.all(writers)]);
        await sleep(Math.floor(random() * 400));
        await serve.stop('SIGKILL');
        stopping = true;
        await Promise.all(writers);
        for (const c of clients) c.close();
        serve = await startServe(['--flush', flush], serve.dataDir);
        const check = await WireClient.connect(serve.port);
        for (const groupId of groups) {
          const offsets = await committed(check, groupId);
          offsets.forEach((offset, partition) => {
            const key = `${groupId}/${partition}`;
            const last = answered.get(key);
            if (last === undefined) return;
            // Offsets only grow here: one sent after the last answered may have been written too.
            assert.ok(offset >= last, `round ${round}: ${key} holds ${offset}, below ${last}, which was answered`);
            assert.ok(sent.get(key)!.has(offset), `round ${round}: ${key} holds ${offset}, which was sent`);
            answered.set(key, offset);
          });
        }
        check.close();
      }
      assert.ok(answered.size > 10, `commits answered: ${answered.size} keys`);
    },
  );
}

test(
  'the move of an earlier brook offset files into __consumer_offsets, SIGKILLed at random points, leaves the old form or the new, and ends with every offset moved',
  { timeout: 180_000 },
  async (t) => {
    const dir = await tempDataDir();
    const first = await startServe([], dir);
    const admin = await WireClient.connect(first.port);
    await createTopic(admin, 't', PARTITIONS);
    admin.close();
    await first.stop();
    // Enough groups that the move takes a while; a later change of some of them, and a deletion.
    const groupCount = 3000;
    const changes: OffsetChange[] = [];
    const offsetOf = (g: number, p: number, later: boolean): bigint => BigInt(g * 10 + p + (later ? 5 : 0));
    for (let g = 0; g < groupCount; g++) {
      changes.push({
        kind: 'commit',
        groupId: `old-${g}`,
        offsets: Array.from({ length: PARTITIONS }, (_, p) => ({
          topic: 't',
          partition: p,
          offset: offsetOf(g, p, false),
          leaderEpoch: -1,
          metadata: '',
          commitTimestamp: Date.now(),
        })),
      });
    }
    for (let g = 0; g < groupCount; g += 7) {
      changes.push({
        kind: 'commit',
        groupId: `old-${g}`,
        offsets: [{ topic: 't', partition: 1, offset: offsetOf(g, 1, true), leaderEpoch: 2, metadata: 'x', commitTimestamp: Date.now() }],
      });
    }
    changes.push({ kind: 'deleteGroup', groupId: 'old-3' });
    await writeOldOffsetLog(dir, changes);
    const expected = (g: number): number[] =>
      g === 3 ? [-1, -1, -1, -1] : Array.from({ length: PARTITIONS }, (_, p) => Number(offsetOf(g, p, p === 1 && g % 7 === 0)));

    const random = seeded(31);
    for (let round = 0; round < 6; round++) {
      const child = spawn(process.execPath, [BROOK_BIN, 'serve', '--data-dir', dir, '--port', '0'], { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.on('close', resolve));
      await sleep(100 + Math.floor(random() * 900));
      child.kill('SIGKILL');
      await exited;
      const names = await readdir(dir);
      const old = names.includes('group-offsets-0.log');
      const marked = names.includes('group-offsets.migrated');
      // Before the marker the old file is whole; after it, only removals are left.
      assert.ok(old || !marked || names.every((n) => !n.startsWith('group-offsets-')), `round ${round}: ${names.join(' ')}`);
    }
    const serve = await startServe([], dir);
    t.after(() => serve.stop('SIGKILL'));
    const c = await WireClient.connect(serve.port);
    t.after(() => c.close());
    assert.deepEqual(
      (await readdir(dir)).filter((n) => n.startsWith('group-offsets')),
      [],
      'the old files and the marker are gone',
    );
    for (let g = 0; g < groupCount; g += 97) assert.deepEqual(await committed(c, `old-${g}`), expected(g), `old-${g}`);
    for (const g of [0, 3, 7, groupCount - 1]) assert.deepEqual(await committed(c, `old-${g}`), expected(g), `old-${g}`);
  },
);
