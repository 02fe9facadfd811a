/**
 * WriteTxnMarkers: the cluster action a transaction coordinator takes. brook has none and lets no
 * client take it: every partition is CLUSTER_AUTHORIZATION_FAILED, as Kafka's `KafkaApis.handleWriteTxnMarkersRequest` answers a client
 * without the permission.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../../protocol/messages/write-txn-markers.js';
import { defineApi } from '../api-handler.js';

export const writeTxnMarkers = defineApi({
  request: WriteTxnMarkersRequest,
  response: WriteTxnMarkersResponse,
  minVersion: 0,
  maxVersion: 1,
  featureOff: true,
  handle(request): WriteTxnMarkersResponse {
    return {
      markers: request.markers.map((m) => ({
        producerId: m.producerId,
        topics: m.topics.map((t) => ({
          name: t.name,
          partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED })),
        })),
      })),
    };
  },
});
