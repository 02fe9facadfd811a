/**
 * The cleaner's offset map: each key's latest offset in the part of the log being cleaned, in at
 * most a given number of bytes (Kafka's log.cleaner.dedupe.buffer.size). Kafka's `SkimpyOffsetMap` keeps a 16-byte
 * MD5 of each key; this map keeps the key itself, so two keys never share an entry, and charges
 * each entry its key's length plus what the JavaScript map spends per entry.
 */

/** About what a Map entry with a short string key and a number costs beyond the key's bytes. */
export const ENTRY_OVERHEAD_BYTES = 64;

export class OffsetMap {
  private readonly latest = new Map<string, number>();
  private used = 0;

  constructor(readonly capacityBytes: number) {}

  /** Records `offset` as the latest of `key`; false, recording nothing, when a new key does not fit. */
  put(key: Buffer, offset: number): boolean {
    const name = key.toString('latin1');
    if (!this.latest.has(name)) {
      const cost = key.length + ENTRY_OVERHEAD_BYTES;
      if (this.used + cost > this.capacityBytes) return false;
      this.used += cost;
    }
    this.latest.set(name, offset);
    return true;
  }

  /** The latest offset recorded for `key`. */
  get(key: Buffer): number | undefined {
    return this.latest.get(key.toString('latin1'));
  }

  clear(): void {
    this.latest.clear();
    this.used = 0;
  }
}
