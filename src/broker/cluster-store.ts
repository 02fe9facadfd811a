/**
 * A simulated cluster's leaderships kept in the data directory (`cluster.json`): replicas,
 * leaders, leader epochs and where each began, and replication factors, so that a new start over
 * the same nodes takes them back. Replaced whole and atomically (`files/durable-file.ts`), so a
 * crash leaves the last state written or the one before it.
 */
import { join } from 'node:path';
import type { LeadershipState } from '../cluster/leadership.js';
import { DurableJsonFile, isJsonObject, isVersion1 } from '../files/durable-file.js';

const FILE = 'cluster.json';

type Stored = { readonly version: 1 } & LeadershipState;

export class ClusterStore {
  private readonly file: DurableJsonFile<Stored>;

  constructor(dataDir: string) {
    this.file = new DurableJsonFile(join(dataDir, FILE), isStored);
  }

  read(): Promise<LeadershipState | undefined> {
    return this.file.read();
  }

  write(state: LeadershipState): Promise<void> {
    return this.file.write({ version: 1, ...state });
  }
}

const isWhole = (v: unknown, min: number): v is number => Number.isSafeInteger(v) && (v as number) >= min;

/** Whether `value` is leaderships as brook writes them: every leader and replica among the nodes, epochs growing to the current one. */
function isStored(value: unknown): value is Stored {
  if (!isVersion1(value) || !Array.isArray(value.nodes) || !value.nodes.every((n) => isWhole(n, 0)) || !isJsonObject(value.topics)) return false;
  const nodes = value.nodes as number[];
  return Object.values(value.topics).every(
    (t) =>
      isJsonObject(t) &&
      isWhole(t.replicationFactor, 1) &&
      Array.isArray(t.partitions) &&
      t.partitions.every(
        (p: unknown) =>
          isJsonObject(p) &&
          Array.isArray(p.replicas) &&
          p.replicas.every((n) => nodes.includes(n as number)) &&
          nodes.includes(p.leader as number) &&
          isWhole(p.epoch, 0) &&
          Array.isArray(p.epochs) &&
          p.epochs.length > 0 &&
          p.epochs.every((e: unknown, i: number, all: unknown[]) => {
            if (!isJsonObject(e) || !isWhole(e.epoch, 0) || !isWhole(e.startOffset, 0)) return false;
            const before = all[i - 1] as { epoch: number; startOffset: number } | undefined;
            return before === undefined || (e.epoch > before.epoch && e.startOffset >= before.startOffset);
          }) &&
          (p.epochs.at(-1) as { epoch: number }).epoch === p.epoch,
      ),
  );
}
