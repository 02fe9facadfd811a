/** Replica assignments a client may ask for: each new partition's on nodes the broker serves, each once. */
import { NODE_ID } from './config.js';

/** What is wrong with `assignments` for `added` new partitions over node ids `nodes`, in Kafka's words; undefined if nothing. */
export function assignmentProblem(
  assignments: readonly { readonly brokerIds: readonly number[] }[],
  added: number,
  nodes: readonly number[],
): string | undefined {
  if (assignments.length !== added) return `Increasing the number of partitions by ${added} but ${assignments.length} assignments provided.`;
  for (const { brokerIds } of assignments) {
    if (brokerIds.length === 0) return 'The manual partition assignment includes an empty replica list.';
    const unknown = new Set(brokerIds.filter((id) => !nodes.includes(id)));
    if (unknown.size > 0) return `Unknown broker(s) in replica assignment: ${[...unknown].join(', ')}.`;
    if (new Set(brokerIds).size < brokerIds.length) return `Duplicate brokers not allowed in replica assignment: ${brokerIds.join(', ')}.`;
  }
  return undefined;
}

/** What is wrong with a partition reassignment's target replicas, in the words of Kafka's controller; undefined if nothing. */
export function reassignmentProblem(replicas: readonly number[]): string | undefined {
  if (replicas.length === 0) return 'The manual partition assignment includes an empty replica list.';
  const sorted = [...replicas].sort((a, b) => a - b);
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i] !== NODE_ID) return `The manual partition assignment includes broker ${sorted[i]}, but no such broker is registered.`;
    if (sorted[i] === sorted[i - 1]) return `The manual partition assignment includes the broker ${sorted[i]} more than once.`;
  }
  return undefined;
}
