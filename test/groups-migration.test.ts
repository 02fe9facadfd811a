/**
 * The move of an earlier brook's `groups.json` into `__consumer_offsets`: every group comes back
 * from the topic, and `kill -9` at any point of the move leaves the old form or the new.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../src/protocol/messages/consumer-group-describe.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../src/protocol/messages/describe-groups.js';
import { HeartbeatRequest, HeartbeatResponse } from '../src/protocol/messages/heartbeat.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { BROOK_BIN } from './helpers/cli.js';
import { seeded } from './helpers/seeded.js';
import { startServe, tempDataDir } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

const CLASSIC = 20_000;
const CONSUMER = 3000;

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** Classic group i as groups.json held it: Stable in generation i % 50 + 1 with two members, or Empty. */
function classicGroup(i: number): object {
  const empty = i % 10 === 0;
  const members = empty
    ? []
    : ['a', 'b'].map((m) => ({
        memberId: `c${i}-${m}`,
        groupInstanceId: m === 'b' && i % 3 === 0 ? `instance-${i}` : null,
        clientId: `client-${m}`,
        clientHost: '/127.0.0.1',
        rebalanceTimeoutMs: 60_000,
        sessionTimeoutMs: 30_000,
        protocols: [{ name: 'range', metadata: b64(`range-${i}-${m}`) }, ...(i % 2 === 0 ? [{ name: 'roundrobin', metadata: b64(`rr-${i}-${m}`) }] : [])],
        assignment: b64(`assigned-${i}-${m}`),
      }));
  return {
    groupId: `classic-${i}`,
    protocolType: 'consumer',
    generationId: (i % 50) + 1,
    protocolName: empty ? null : 'range',
    leaderId: empty ? null : `c${i}-a`,
    members,
    currentStateTimestamp: 1_700_000_000_000 + i,
  };
}

/** Consumer group i: two members at epoch i % 20 + 1, sharing the topic's four partitions. */
function consumerGroup(i: number, topicId: string): object {
  const epoch = (i % 20) + 1;
  const member = (m: string, partitions: number[]) => ({
    memberId: `k${i}-${m}`,
    instanceId: null,
    rackId: null,
    clientId: `client-${m}`,
    clientHost: '/127.0.0.1',
    rebalanceTimeoutMs: 45_000,
    subscribedTopicNames: ['in'],
    subscribedTopicRegex: null,
    serverAssignor: 'uniform',
    memberEpoch: epoch,
    previousMemberEpoch: epoch - 1,
    state: 'stable',
    assigned: [[topicId, partitions]],
    pendingRevocation: [],
    target: [[topicId, partitions]],
    assignmentEpochs: [[topicId, partitions.map((p) => [p, epoch])]],
  });
  return {
    groupId: `consumer-${i}`,
    groupEpoch: epoch,
    assignmentEpoch: epoch,
    subscribedPartitions: [[topicId, 4]],
    members: [member('a', [0, 1]), member('b', [2, 3])],
  };
}

test(
  'kill -9 at random points of the move of groups.json into __consumer_offsets leaves the old form or the new; the groups all come back',
  { timeout: 240_000 },
  async (t) => {
    const dir = await tempDataDir();
    const first = await startServe([], dir);
    const admin = await WireClient.connect(first.port);
    await createTopic(admin, 'in', 4);
    const metadata = await admin.request(MetadataRequest, MetadataResponse, 12, {
      topics: [{ topicId: ZERO_UUID, name: 'in' }],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const topicId = metadata.topics[0]!.topicId;
    admin.close();
    await first.stop();

    const classic = Array.from({ length: CLASSIC }, (_, i) => classicGroup(i));
    const consumer = Array.from({ length: CONSUMER }, (_, i) => consumerGroup(i, topicId));
    await writeFile(join(dir, 'groups.json'), `${JSON.stringify({ version: 1, groups: classic, consumerGroups: consumer })}\n`);
    const oldBytes = await readFile(join(dir, 'groups.json'));

    const random = seeded(38);
    for (let round = 0; round < 8; round++) {
      const child = spawn(process.execPath, [BROOK_BIN, 'serve', '--data-dir', dir, '--port', '0'], { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.on('close', resolve));
      // The first kill comes at a random point after the topic is first made, that is within the move (about half a second
      // here, after a second of reading the file); the later ones at a random point of the start, before, within or after
      // what is left of it.
      if (round === 0) {
        while (!(await readdir(dir)).some((n) => n.startsWith('__consumer_offsets-')) && child.exitCode === null) await sleep(2);
        await sleep(Math.floor(random() * 500));
      } else {
        await sleep(Math.floor(random() * 2500));
      }
      child.kill('SIGKILL');
      await exited;
      const names = await readdir(dir);
      const old = names.includes('groups.json');
      const marked = names.includes('groups.migrated');
      if (old && !marked) assert.deepEqual(await readFile(join(dir, 'groups.json')), oldBytes, `round ${round}: the old file untouched before the marker`);
      assert.ok(old || marked || !names.includes('groups.json.tmp'), `round ${round}: ${names.filter((n) => n.startsWith('groups')).join(' ')}`);
    }

    const serve = await startServe([], dir);
    t.after(() => serve.stop('SIGKILL'));
    const c = await WireClient.connect(serve.port);
    t.after(() => c.close());
    assert.deepEqual(
      (await readdir(dir)).filter((n) => n.startsWith('groups')),
      [],
      'the old file and the marker are gone',
    );

    const described = await c.request(DescribeGroupsRequest, DescribeGroupsResponse, 5, {
      groups: classic.map((_, i) => `classic-${i}`),
      includeAuthorizedOperations: false,
    });
    described.groups.forEach((g, i) => {
      const empty = i % 10 === 0;
      assert.deepEqual(
        [
          g.errorCode,
          g.groupState,
          g.protocolType,
          g.protocolData,
          g.members.map((m) => [m.memberId, m.clientId, m.memberMetadata.toString(), m.memberAssignment.toString()]),
        ],
        [
          ErrorCode.NONE,
          empty ? 'Empty' : 'Stable',
          'consumer',
          empty ? '' : 'range',
          empty ? [] : ['a', 'b'].map((m) => [`c${i}-${m}`, `client-${m}`, `range-${i}-${m}`, `assigned-${i}-${m}`]),
        ],
        g.groupId,
      );
    });
    // Each Stable group's generation is the one it had: its members heartbeat in it.
    for (let i = 1; i < CLASSIC; i += 97) {
      if (i % 10 === 0) continue;
      const beat = await c.request(HeartbeatRequest, HeartbeatResponse, 4, {
        groupId: `classic-${i}`,
        generationId: (i % 50) + 1,
        memberId: `c${i}-a`,
        groupInstanceId: null,
      });
      assert.equal(beat.errorCode, ErrorCode.NONE, `classic-${i}'s generation`);
    }

    const consumerGroups = await c.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 1, {
      groupIds: consumer.map((_, i) => `consumer-${i}`),
      includeAuthorizedOperations: false,
    });
    consumerGroups.groups.forEach((g, i) => {
      const epoch = (i % 20) + 1;
      assert.deepEqual(
        [
          g.errorCode,
          g.groupState,
          g.groupEpoch,
          g.assignmentEpoch,
          g.members.map((m) => [m.memberId, m.memberEpoch, m.assignment.topicPartitions.map((tp) => [tp.topicId, tp.partitions])]),
        ],
        [
          ErrorCode.NONE,
          'Stable',
          epoch,
          epoch,
          [
            [`k${i}-a`, epoch, [[topicId, [0, 1]]]],
            [`k${i}-b`, epoch, [[topicId, [2, 3]]]],
          ],
        ],
        g.groupId,
      );
    });
  },
);
