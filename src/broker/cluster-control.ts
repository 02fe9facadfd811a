/**
 * The controls a test drives a simulated cluster with (`Broker.cluster`): leaders moved, nodes
 * stopped and started, isolated and healed. Each change of leader bumps the partition's leader
 * epoch; clients learn of it as from Kafka, by NOT_LEADER_OR_FOLLOWER or NOT_COORDINATOR and a
 * metadata refresh, or from the leader a newer Produce or Fetch answer names (`node-view.ts`).
 */
import { formatHostPort } from '../server/host-port.js';
import type { Cluster } from './cluster.js';
import type { NodeListeners } from './node-listeners.js';

export interface ClusterNode {
  readonly nodeId: number;
  /** "host:port" of its listener. */
  readonly bootstrap: string;
  /** Neither stopped nor isolated. */
  readonly live: boolean;
}

export interface ClusterControl {
  /** Every node, by id. */
  readonly nodes: readonly ClusterNode[];
  /** The live nodes' "host:port", for a client's list of bootstrap brokers. */
  readonly bootstraps: readonly string[];
  /** The node leading partition `partition` of `topic`. */
  leaderOf(topic: string, partition: number): number;
  /** Makes live node `node` lead the partition, at the next leader epoch. */
  moveLeader(topic: string, partition: number, node: number): void;
  /** Closes the node's listener and connections; what it leads or coordinates moves to live nodes. */
  stopNode(node: number): Promise<void>;
  /** Opens the node's listener again, on its port; it leads nothing until leaders are moved to it. */
  startNode(node: number): Promise<void>;
  /** Resolves once the leaderships so far are kept in the data directory, which a new start over the same nodes takes back. */
  saved(): Promise<void>;
  /** The node's connections hang, new ones too, and what it leads moves, as when the network cuts it off. */
  isolate(node: number): void;
  /** The node answers again; connections that hung close. */
  heal(node: number): void;
}

export function clusterControl(
  cluster: Cluster,
  host: string,
  listeners: () => NodeListeners,
  ports: ReadonlyMap<number, number>,
  inTurn: (work: () => Promise<void>) => Promise<void>,
): ClusterControl {
  const { leadership } = cluster;
  const known = (node: number, action: string): void => {
    if (!leadership.nodes.includes(node)) throw new RangeError(`${action}: no node ${node} among ${leadership.nodes.join(', ')}`);
  };
  return {
    get nodes() {
      return leadership.nodes.map((nodeId) => ({ nodeId, bootstrap: formatHostPort(host, ports.get(nodeId)!), live: leadership.isLive(nodeId) }));
    },
    get bootstraps() {
      return leadership.live().map((nodeId) => formatHostPort(host, ports.get(nodeId)!));
    },
    leaderOf(topic, partition) {
      const p = cluster.partition(topic, partition);
      if (p === undefined) throw new RangeError(`leaderOf: no partition ${topic}-${partition}`);
      return p.leader;
    },
    moveLeader(topic, partition, node) {
      cluster.moveLeader(topic, partition, node);
    },
    stopNode(node) {
      known(node, 'stopNode');
      return inTurn(async () => {
        if (cluster.stopped.has(node)) return;
        cluster.stop(node);
        cluster.stopped.add(node);
        await listeners().stop(node);
      });
    },
    startNode(node) {
      known(node, 'startNode');
      return inTurn(async () => {
        if (!cluster.stopped.has(node)) return;
        await listeners().start(node, ports.get(node)!);
        cluster.stopped.delete(node);
        if (!cluster.isolated.has(node)) leadership.start(node);
      });
    },
    saved: () => cluster.saved(),
    isolate(node) {
      known(node, 'isolate');
      if (cluster.isolated.has(node)) return;
      cluster.stop(node);
      cluster.isolated.add(node);
    },
    heal(node) {
      known(node, 'heal');
      if (!cluster.isolated.has(node)) return;
      cluster.isolated.delete(node);
      listeners().heal(node);
      if (!cluster.stopped.has(node)) leadership.start(node);
    },
  };
}
