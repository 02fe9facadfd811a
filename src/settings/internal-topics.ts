/**
 * Kafka's internal topics, where the coordinators keep their state: the group coordinator's
 * committed offsets and groups, and the transaction coordinator's transaction states. Clients may
 * read them; Kafka's `KafkaApis` and `ReplicaManager` refuse their writes, deletes and growth.
 */
export const OFFSETS_TOPIC = '__consumer_offsets';
export const TRANSACTION_STATE_TOPIC = '__transaction_state';

/** The coordinators' topics, by kind of coordinator key. */
export const COORDINATOR_TOPICS = { group: OFFSETS_TOPIC, transaction: TRANSACTION_STATE_TOPIC } as const;

export function isInternalTopic(name: string): boolean {
  return name === OFFSETS_TOPIC || name === TRANSACTION_STATE_TOPIC;
}
