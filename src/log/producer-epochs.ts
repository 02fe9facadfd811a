/**
 * The newest epoch InitProducerId has handed each producer id, kept across restarts, so that a
 * bumped producer's older batches are fenced on every partition — including partitions the new
 * epoch has not written to yet — and a bump must name the epoch it replaces.
 */
import { join } from 'node:path';
import { DurableJsonFile, isJsonObject, isVersion1 } from '../files/durable-file.js';

interface EpochsJson {
  readonly version: 1;
  /** producer id → [epoch, time of the bump in ms] */
  readonly epochs: Record<string, [number, number]>;
}

function isEpochsJson(value: unknown): value is EpochsJson {
  if (!isVersion1(value) || !isJsonObject(value.epochs)) return false;
  return Object.entries(value.epochs).every(
    ([id, entry]) => /^\d+$/.test(id) && Array.isArray(entry) && entry.length === 2 && entry.every(Number.isSafeInteger),
  );
}

export class ProducerEpochs {
  private constructor(
    private readonly file: DurableJsonFile<EpochsJson>,
    private readonly epochs: Map<bigint, [number, number]>,
    /** producer.id.expiration.ms: a producer idle this long is forgotten here as in the logs. */
    private readonly expirationMs: number,
  ) {}

  static async open(dataDir: string, expirationMs: number, now: number): Promise<ProducerEpochs> {
    const file = new DurableJsonFile(join(dataDir, 'producer-epochs.json'), isEpochsJson);
    const json = await file.read();
    const epochs = new Map<bigint, [number, number]>();
    for (const [id, entry] of Object.entries(json?.epochs ?? {})) {
      if (now - entry[1] < expirationMs) epochs.set(BigInt(id), entry);
    }
    return new ProducerEpochs(file, epochs, expirationMs);
  }

  /** The newest epoch handed to `producerId`, if it was ever bumped and has not expired. */
  current(producerId: bigint): number | undefined {
    return this.epochs.get(producerId)?.[0];
  }

  /** Records `epoch` as `producerId`'s newest, durably, before it is handed out. */
  async record(producerId: bigint, epoch: number, now: number): Promise<void> {
    this.epochs.set(producerId, [epoch, now]);
    for (const [id, [, at]] of this.epochs) if (now - at >= this.expirationMs) this.epochs.delete(id);
    await this.file.write({ version: 1, epochs: Object.fromEntries([...this.epochs].map(([id, entry]) => [id.toString(), entry])) });
  }
}
