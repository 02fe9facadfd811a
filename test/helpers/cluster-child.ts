/**
 * Serves three nodes over a data directory, creates topic `moving` (3 partitions, replication
 * factor 3) unless it is there, and moves its leaders round and round until killed, printing
 * each move as a JSON line `{partition, epoch, leader}` once it is kept in the data directory.
 * Usage: node --import tsx cluster-child.ts <data dir>
 */
import { startBroker } from '../../src/broker/start-broker.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../../src/protocol/messages/create-topics.js';
import { WireClient } from './wire-client.js';

const [dataDir] = process.argv.slice(2);
if (dataDir === undefined) throw new Error('usage: cluster-child.ts <data dir>');
const broker = await startBroker({ nodes: 3, dataDir, port: 0 });
const client = await WireClient.connect(broker.port);
await client.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
  topics: [{ name: 'moving', numPartitions: 3, replicationFactor: 3, assignments: [], configs: [] }],
  timeoutMs: 1000,
  validateOnly: false,
});
client.close();
for (let i = 0; ; i++) {
  const partition = i % 3;
  const leader = (broker.cluster.leaderOf('moving', partition) % 3) + 1;
  broker.cluster.moveLeader('moving', partition, leader);
  await broker.cluster.saved();
  process.stdout.write(`${JSON.stringify({ partition, leader })}\n`);
}
