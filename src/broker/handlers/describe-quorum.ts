/**
 * DescribeQuorum: brook is its own controller, so the quorum is node 1 alone, leading. brook
 * keeps no metadata log: the voter's log, and the high watermark, are empty (0).
 */
import { ZERO_UUID } from '../../protocol/primitives/reader.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeQuorumRequest, DescribeQuorumResponse } from '../../protocol/messages/describe-quorum.js';
import { defineApi } from '../api-handler.js';
import { LEADER_EPOCH, NODE_ID, securityProtocol } from '../config.js';

const METADATA_TOPIC = '__cluster_metadata';

export const describeQuorum = defineApi({
  request: DescribeQuorumRequest,
  response: DescribeQuorumResponse,
  minVersion: 0,
  maxVersion: 2,
  handle(request, _info, broker): DescribeQuorumResponse {
    const [topic] = request.topics;
    if (request.topics.length !== 1 || topic!.topicName !== METADATA_TOPIC || topic!.partitions.length !== 1 || topic!.partitions[0]!.partitionIndex !== 0) {
      // As Kafka's `DescribeQuorumRequest.getTopicResponseByPartitions` answers: every partition named gets the error.
      const topics = request.topics.map((t) => ({
        topicName: t.topicName,
        partitions: t.partitions.map(({ partitionIndex }) => ({
          partitionIndex,
          errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          errorMessage: 'This server does not host this topic-partition.',
          leaderId: 0,
          leaderEpoch: 0,
          highWatermark: 0n,
          currentVoters: [],
          observers: [],
        })),
      }));
      return { errorCode: ErrorCode.NONE, errorMessage: null, topics, nodes: [] };
    }
    const now = BigInt(Date.now());
    const voter = { replicaId: NODE_ID, replicaDirectoryId: ZERO_UUID, logEndOffset: 0n, lastFetchTimestamp: now, lastCaughtUpTimestamp: now };
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      topics: [
        {
          topicName: METADATA_TOPIC,
          partitions: [
            {
              partitionIndex: 0,
              errorCode: ErrorCode.NONE,
              errorMessage: null,
              leaderId: NODE_ID,
              leaderEpoch: LEADER_EPOCH,
              highWatermark: 0n,
              currentVoters: [voter],
              observers: [],
            },
          ],
        },
      ],
      nodes: [{ nodeId: NODE_ID, listeners: [{ name: securityProtocol(broker.config), host: broker.advertised.host, port: broker.advertised.port }] }],
    };
  },
});
