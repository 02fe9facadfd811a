/**
 * Where a simulated cluster's replicas go and which node coordinates a key, as Kafka decides them.
 * Pure: node ids in, node ids out.
 */

/**
 * The replicas of partition `index` over `nodes` (ascending ids), `replicationFactor` of them,
 * first the preferred leader: the rack-unaware striping of Kafka's
 * `AdminUtils.assignReplicasToBrokersRackUnaware`. Kafka draws the first node and the shift of
 * the followers at random; brook starts both at 0, so that a test knows where partitions lead.
 */
export function placeReplicas(nodes: readonly number[], index: number, replicationFactor: number): number[] {
  const n = nodes.length;
  const first = index % n;
  // The followers' shift grows by one each time the partitions have gone once round the nodes.
  const shift = Math.floor(index / n);
  const replicas = [nodes[first]!];
  for (let j = 0; j < replicationFactor - 1; j++) replicas.push(nodes[(first + 1 + ((shift + j) % (n - 1))) % n]!);
  return replicas;
}

/** Java's `String.hashCode`: 32-bit, over UTF-16 code units. */
function javaHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The partition of the coordinators' topic (`__consumer_offsets` for a group,
 * `__transaction_state` for a transactional id) that holds `key`, as Kafka's
 * `GroupCoordinator.partitionFor` and `TransactionStateManager.partitionFor` compute it:
 * `Utils.abs(key.hashCode) % partitions`, where `Utils.abs` takes Integer.MIN_VALUE to 0.
 */
export function coordinatorPartition(key: string, partitions: number): number {
  const h = javaHashCode(key);
  return (h === -(2 ** 31) ? 0 : Math.abs(h)) % partitions;
}
