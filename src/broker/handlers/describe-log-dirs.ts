/**
 * DescribeLogDirs: the data directory is brook's one log dir; each partition asked about (all,
 * when the request names none) with the bytes of its segment files, and from v4 the file
 * system's total and usable bytes.
 */
import { resolve } from 'node:path';
import { fileSystemSpace, segmentBytes } from '../../log/log-dir-usage.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeLogDirsRequest, DescribeLogDirsResponse } from '../../protocol/messages/describe-log-dirs.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';
import { storageFailure } from '../storage-error.js';

type Topic = DescribeLogDirsResponse['results'][number]['topics'][number];

export const describeLogDirs = defineApi({
  request: DescribeLogDirsRequest,
  response: DescribeLogDirsResponse,
  minVersion: 0,
  maxVersion: 4,
  async handle(request, _info, broker): Promise<DescribeLogDirsResponse> {
    const logDir = resolve(broker.config.dataDir);
    let result: DescribeLogDirsResponse['results'][number];
    try {
      const [topics, space] = await Promise.all([describeTopics(broker, request.topics), fileSystemSpace(logDir)]);
      result = { errorCode: ErrorCode.NONE, logDir, topics, totalBytes: BigInt(space.totalBytes), usableBytes: BigInt(space.usableBytes) };
    } catch (err) {
      const errorCode = storageFailure(broker.logger, err, { logDir }, 'describing the log dir failed');
      result = { errorCode, logDir, topics: [], totalBytes: -1n, usableBytes: -1n };
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, results: [result] };
  },
});

/** The partitions asked about that brook holds, by topic; null asks about every one. */
async function describeTopics(broker: BrokerContext, asked: DescribeLogDirsRequest['topics']): Promise<Topic[]> {
  let wanted: Map<string, Set<number>> | undefined;
  if (asked !== null) {
    wanted = new Map();
    for (const t of asked) wanted.set(t.topic, new Set([...(wanted.get(t.topic) ?? []), ...t.partitions]));
  }
  const topics = broker.storage.topics().filter((t) => wanted === undefined || wanted.has(t.name));
  const described = await Promise.all(
    topics.map(async ({ name, partitions: count }) => {
      const indexes = wanted?.get(name) ?? Array.from({ length: count }, (_, p) => p);
      const partitions = await Promise.all(
        [...indexes].map(async (partitionIndex) => {
          const log = broker.storage.partition(name, partitionIndex);
          const size = log === undefined ? undefined : await segmentBytes(log.dir);
          return size === undefined ? [] : [{ partitionIndex, partitionSize: BigInt(size), offsetLag: 0n, isFutureKey: false }];
        }),
      );
      return { name, partitions: partitions.flat() };
    }),
  );
  return described.filter((t) => t.partitions.length > 0);
}
