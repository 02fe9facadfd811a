/**
 * librdkafka (confluent-kafka) and Sarama against three nodes: each client's idempotent producer
 * and consumer group run while every partition's leader moves on each second and the node
 * coordinating the group stops and starts again. Every acknowledged record is then read once,
 * where it was acknowledged, and nothing unacknowledged is in the log. The moves run between the
 * client saying its topic exists and the test closing its stdin, so all of them happen during the
 * run whatever the machine's speed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBroker, type Broker } from '../../src/broker/start-broker.js';
import { describeTally, readTopic, tally, type Placed } from '../helpers/exactly-once.js';
import { LineProcess } from '../helpers/line-process.js';
import { buildGoClient } from './go-clients.js';

const PARTITIONS = 3;
/** Java's "hello".hashCode() puts this group's coordinator on node 2, the node stopped. */
const GROUP = 'hello';
const STOPPED = 2;

interface Moved {
  readonly acked: Placed[];
  readonly read: Placed[];
  readonly produceErrors: string[];
  readonly consumeErrors: string[];
}

/** Eight seconds of moves: each partition's leader moves on every second; node 2 stops after the third and starts after the sixth. */
async function moveLeaders(broker: Broker, topic: string): Promise<void> {
  for (let second = 1; second <= 8; second++) {
    await sleep(1000);
    const live = broker.cluster.nodes.filter((n) => n.live).map((n) => n.nodeId);
    for (let p = 0; p < PARTITIONS; p++) {
      const leader = broker.cluster.leaderOf(topic, p);
      broker.cluster.moveLeader(topic, p, live[(live.indexOf(leader) + 1) % live.length]!);
    }
    if (second === 3) await broker.cluster.stopNode(STOPPED);
    if (second === 6) await broker.cluster.startNode(STOPPED);
  }
}

/** Runs `client` (which creates `topic`) through the moves, and checks what it acknowledged and read against the log. */
async function throughMoves(broker: Broker, topic: string, client: LineProcess<Moved | { created: string }>): Promise<void> {
  try {
    await client.until((lines) => lines.length > 0, `${topic} is created`, 60_000);
    await moveLeaders(broker, topic);
  } catch (err) {
    client.kill();
    throw err;
  }
  const result = (await client.finish()) as Moved;
  assert.deepEqual(result.produceErrors, []);
  // A record read again after a rebalance is the consumer's repeat, not the log's: each offset counts once.
  const read = new Map(result.read.map((r) => [`${r[0]}@${r[1]}`, r]));
  const t = tally(result.acked, [...read.values()]);
  assert.ok(t.acked > 0, 'records were acknowledged');
  assert.deepEqual([t.losses, t.duplicates, t.misplaced, t.unacked], [0, 0, 0, 0], describeTally(t));
  // The log itself holds each acknowledged record once, and nothing else.
  const logged = tally(result.acked, await readTopic(broker.cluster.bootstraps.join(','), topic));
  assert.deepEqual([logged.read, logged.losses, logged.duplicates, logged.misplaced], [t.acked, 0, 0, 0], describeTally(logged));
}

test('librdkafka: an idempotent producer and a consumer group lose and repeat nothing while leaders move and a node stops', { timeout: 180_000 }, async (t) => {
  const broker = await startBroker({ nodes: 3 });
  t.after(() => broker.close());
  const client = LineProcess.python<Moved | { created: string }>('confluent_moving_leaders.py', [
    broker.cluster.bootstraps.join(','),
    'rd-moving',
    GROUP,
    PARTITIONS,
  ]);
  await throughMoves(broker, 'rd-moving', client);
});

test('Sarama: an idempotent producer and a consumer group lose and repeat nothing while leaders move and a node stops', { timeout: 240_000 }, async (t) => {
  const sarama = await buildGoClient('sarama');
  // Sarama 1.22's consumer group joins with JoinGroup v1, which Kafka 4.0 removed.
  const broker = await startBroker({ nodes: 3, kafkaVersion: '3.9' });
  t.after(async () => {
    await broker.close();
    await sarama.remove();
  });
  const client = sarama.start<Moved | { created: string }>(['moving', broker.cluster.bootstraps.join(','), 'sarama-moving', GROUP, PARTITIONS]);
  await throughMoves(broker, 'sarama-moving', client);
});
