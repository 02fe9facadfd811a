import { after, before } from 'node:test';
import { startBroker, type Broker } from '../../src/broker/start-broker.js';
import { WireClient } from './wire-client.js';
import { createTopic } from './wire-produce.js';

/** Broker options under which consumer-protocol members heartbeat often, so that a group settles in a fraction of a second. */
export const QUICK_HEARTBEATS = { consumerGroupMinHeartbeatIntervalMs: 50, consumerGroupHeartbeatIntervalMs: 100 };

/**
 * A broker with QUICK_HEARTBEATS and a wire client that created `topic`, for the tests of one file:
 * started before them and closed after; its fields are set once they run.
 */
export function groupTestBroker(topic: string, partitions: number): { readonly broker: Broker; readonly wire: WireClient } {
  const env = {} as { broker: Broker; wire: WireClient };
  before(async () => {
    env.broker = await startBroker(QUICK_HEARTBEATS);
    env.wire = await WireClient.connect(env.broker.port);
    await createTopic(env.wire, topic, partitions);
  });
  after(async () => {
    env.wire.close();
    await env.broker.close();
  });
  return env;
}
