/**
 * AlterReplicaLogDirs: with one log dir there is nowhere to move a replica to. Moving one to the
 * data directory, where it is, changes nothing; another path is LOG_DIR_NOT_FOUND and a partition
 * brook does not hold REPLICA_NOT_AVAILABLE, as in Kafka.
 */
import { resolve } from 'node:path';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse } from '../../protocol/messages/alter-replica-log-dirs.js';
import { defineApi } from '../api-handler.js';

/** Kafka cannot move the log of a topic whose name is longer (KAFKA-4893). */
const MAX_TOPIC_NAME_LENGTH = 255;

export const alterReplicaLogDirs = defineApi({
  request: AlterReplicaLogDirsRequest,
  response: AlterReplicaLogDirsResponse,
  minVersion: 0,
  maxVersion: 2,
  handle(request, _info, broker): AlterReplicaLogDirsResponse {
    const logDir = resolve(broker.config.dataDir);
    const results = request.dirs.flatMap((dir) =>
      dir.topics.map((t) => ({
        topicName: t.name,
        partitions: t.partitions.map((partitionIndex) => {
          let errorCode: number = ErrorCode.NONE;
          if (t.name.length > MAX_TOPIC_NAME_LENGTH) errorCode = ErrorCode.INVALID_TOPIC_EXCEPTION;
          else if (dir.path !== logDir) errorCode = ErrorCode.LOG_DIR_NOT_FOUND;
          else if (broker.storage.partition(t.name, partitionIndex) === undefined) errorCode = ErrorCode.REPLICA_NOT_AVAILABLE;
          return { partitionIndex, errorCode };
        }),
      })),
    );
    return { throttleTimeMs: 0, results };
  },
});
