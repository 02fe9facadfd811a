/**
 * A release of each transaction protocol, for tests that must pass under both: transactions v1
 * (KIP-98, Kafka 3.9's) and v2 (KIP-890 part 2, finalized from Kafka 4.0, brook's default).
 */
import type { KafkaVersion } from '../../src/protocol/kafka-releases.js';

export const TRANSACTION_PROFILES: readonly { readonly protocol: 'v1' | 'v2'; readonly kafkaVersion: KafkaVersion }[] = [
  { protocol: 'v1', kafkaVersion: '3.9' },
  { protocol: 'v2', kafkaVersion: '4.0' },
];
