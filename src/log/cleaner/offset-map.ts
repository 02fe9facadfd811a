/**
 * The cleaner's offset map: each key's latest offset in the part of the log being cleaned, in at
 * most a given number of bytes (Kafka's log.cleaner.dedupe.buffer.size). Kafka's `SkimpyOffsetMap`
 * keeps a 16-byte MD5 of each key; this map keeps the key's bytes themselves, so two keys never
 * share an entry, and charges each entry its key's length plus what its slots take.
 *
 * An open-addressing table over typed arrays: a lookup hashes the key's bytes and compares them
 * with the bytes kept, with no string or object made per record (what a JavaScript Map of
 * strings spends per key was most of a cleaning's time). It grows by doubling, so a small log's
 * cleaning never takes the whole budget, and `clear` gives the memory back.
 */

/** What an entry costs beyond its key: its hash, offset, key position and length (4 + 8 + 4 + 4), and two table slots (the table is at most half full). */
export const ENTRY_OVERHEAD_BYTES = 28;

const INITIAL_ENTRIES = 1024;
const INITIAL_KEY_BYTES = 64 * 1024;

/**
 * FNV-1a over the bytes, cheap for the short keys compacted topics mostly hold, then MurmurHash3's
 * finalizer: FNV's low bits, which pick the slot, follow only the low bits of the bytes, so keys
 * that differ little (`key-1`, `key-2`, …) would crowd together in the table.
 */
function hashOf(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class OffsetMap {
  /** Entry index + 1 per slot, 0 for none. */
  private slots = new Int32Array(INITIAL_ENTRIES * 2);
  private hashes = new Int32Array(INITIAL_ENTRIES);
  private offsets = new Float64Array(INITIAL_ENTRIES);
  private keyStarts = new Uint32Array(INITIAL_ENTRIES);
  private keyLengths = new Uint32Array(INITIAL_ENTRIES);
  private keys: Buffer = Buffer.allocUnsafe(INITIAL_KEY_BYTES);
  private entries = 0;
  private keyBytes = 0;
  private used = 0;

  constructor(readonly capacityBytes: number) {}

  /** Records `offset` as the latest of the key in `bytes` from `start` to `end`; false, recording nothing, when a new key does not fit. */
  put(bytes: Uint8Array, start: number, end: number, offset: number): boolean {
    const hash = hashOf(bytes, start, end);
    const slot = this.find(bytes, start, end, hash);
    const found = this.slots[slot]!;
    if (found !== 0) {
      this.offsets[found - 1] = offset;
      return true;
    }
    const length = end - start;
    const cost = length + ENTRY_OVERHEAD_BYTES;
    if (this.used + cost > this.capacityBytes) return false;
    this.used += cost;
    if (this.keyBytes + length > this.keys.length) this.keys = grown(this.keys, this.keyBytes + length);
    this.keys.set(bytes.subarray(start, end), this.keyBytes);
    if (this.entries === this.hashes.length) {
      this.growEntries();
      this.slots[this.find(bytes, start, end, hash)] = this.entries + 1;
    } else {
      this.slots[slot] = this.entries + 1;
    }
    this.hashes[this.entries] = hash;
    this.offsets[this.entries] = offset;
    this.keyStarts[this.entries] = this.keyBytes;
    this.keyLengths[this.entries] = length;
    this.keyBytes += length;
    this.entries++;
    return true;
  }

  /** The latest offset recorded for the key in `bytes` from `start` to `end`. */
  get(bytes: Uint8Array, start: number, end: number): number | undefined {
    const found = this.slots[this.find(bytes, start, end, hashOf(bytes, start, end))]!;
    return found === 0 ? undefined : this.offsets[found - 1];
  }

  clear(): void {
    this.slots = new Int32Array(INITIAL_ENTRIES * 2);
    this.hashes = new Int32Array(INITIAL_ENTRIES);
    this.offsets = new Float64Array(INITIAL_ENTRIES);
    this.keyStarts = new Uint32Array(INITIAL_ENTRIES);
    this.keyLengths = new Uint32Array(INITIAL_ENTRIES);
    this.keys = Buffer.allocUnsafe(INITIAL_KEY_BYTES);
    this.entries = 0;
    this.keyBytes = 0;
    this.used = 0;
  }

  /** The slot holding the key, or the empty one where it would go. */
  private find(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) return slot;
      const i = entry - 1;
      if (this.hashes[i] === hash && this.keyLengths[i] === end - start && this.sameKey(i, bytes, start, end)) return slot;
    }
  }

  private sameKey(entry: number, bytes: Uint8Array, start: number, end: number): boolean {
    for (let j = start, k = this.keyStarts[entry]!; j < end; j++, k++) if (this.keys[k] !== bytes[j]) return false;
    return true;
  }

  /** Doubles the entries' columns and the table, placing every entry again. */
  private growEntries(): void {
    const size = this.hashes.length * 2;
    this.hashes = widened(this.hashes, new Int32Array(size));
    this.offsets = widened(this.offsets, new Float64Array(size));
    this.keyStarts = widened(this.keyStarts, new Uint32Array(size));
    this.keyLengths = widened(this.keyLengths, new Uint32Array(size));
    this.slots = new Int32Array(size * 2);
    const mask = this.slots.length - 1;
    for (let i = 0; i < this.entries; i++) {
      let slot = this.hashes[i]! & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = i + 1;
    }
  }
}

function widened<T extends Int32Array | Uint32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** A copy of `keys` with room for at least `needed` bytes. */
function grown(keys: Buffer, needed: number): Buffer {
  let size = keys.length * 2;
  while (size < needed) size *= 2;
  const copy = Buffer.allocUnsafe(size);
  keys.copy(copy);
  return copy;
}
