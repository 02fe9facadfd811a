/** `__consumer_offsets` over a real Storage in `dir`, as startBroker gives it to the group coordinator. */
import { offsetsLog } from '../../src/broker/offsets-log.js';
import { Partitions } from '../../src/broker/partition.js';
import { ProducerActivity } from '../../src/broker/producer-activity.js';
import type { CoordinatorLog } from '../../src/protocol/coordinator-log.js';
import { Storage } from '../../src/log/storage.js';
import type { FlushPolicy } from '../../src/settings/kinds.js';
import { DEFAULT_CONFIG } from '../../src/settings/settings.js';

export interface OpenOffsetsLog {
  readonly log: CoordinatorLog;
  readonly storage: Storage;
  readonly partitions: Partitions;
  close(): Promise<void>;
}

/** A few partitions by default, so that a test's topic is quick to make. */
export async function openOffsetsLog(dir: string, { offsetsTopicNumPartitions = 5, flush = 'none' as FlushPolicy } = {}): Promise<OpenOffsetsLog> {
  const storage = await Storage.open(dir, { flush });
  const partitions = new Partitions(storage, new ProducerActivity(), () => {});
  const log = offsetsLog(partitions, { ...DEFAULT_CONFIG, offsetsTopicNumPartitions }, () => 0);
  return { log, storage, partitions, close: () => storage.close() };
}
