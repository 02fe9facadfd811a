/** `__consumer_offsets` over a real Storage in `dir`, as startBroker gives it to the group coordinator. */
import { offsetsLog } from '../../src/broker/offsets-log.js';
import { Partitions } from '../../src/broker/partition.js';
import { ProducerActivity } from '../../src/broker/producer-activity.js';
import type { CoordinatorOffsetsLog } from '../../src/groups/group-coordinator.js';
import { Storage } from '../../src/log/storage.js';
import type { FlushPolicy } from '../../src/settings/kinds.js';

export interface OpenOffsetsLog {
  readonly log: CoordinatorOffsetsLog;
  readonly storage: Storage;
  readonly partitions: Partitions;
  close(): Promise<void>;
}

/** A few partitions by default, so that a test's topic is quick to make. */
export async function openOffsetsLog(dir: string, { offsetsTopicNumPartitions = 5, flush = 'none' as FlushPolicy } = {}): Promise<OpenOffsetsLog> {
  const storage = await Storage.open(dir, { flush });
  const partitions = new Partitions(storage, new ProducerActivity(), () => {});
  const log = offsetsLog(partitions, { offsetsTopicNumPartitions, offsetsTopicSegmentBytes: 100 * 1024 * 1024 }, () => 0);
  return { log, storage, partitions, close: () => storage.close() };
}
