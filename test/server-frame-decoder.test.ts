import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FrameDecoder, FrameError } from '../src/server/frame-decoder.js';
import { BufferPool } from '../src/memory/buffer-pool.js';

const MAX = 1 << 20;

function stream(frames: readonly Buffer[]): Buffer {
  return Buffer.concat(frames.flatMap((f) => [Buffer.from(Uint8Array.of(f.length >>> 24, f.length >>> 16, f.length >>> 8, f.length)), f]));
}

test('frames come out whole however reads split them, from read memory that is scribbled over after each read', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 90_000 })), { minLength: 1, maxLength: 12 }),
      fc.integer({ min: 1, max: 70_000 }),
      fc.array(fc.integer({ min: 1, max: 80_000 }), { minLength: 1, maxLength: 30 }),
      fc.integer(),
      fc.boolean(),
      (sizes, readMemorySize, readSizes, seed, inPlace) => {
        const frames = sizes.map((size, i) => Buffer.alloc(size, (seed + i) & 0xff).fill(i & 0xff, 0, Math.min(size, 8)));
        const bytes = stream(frames);
        const memory = new BufferPool(4 * MAX);
        const decoder = new FrameDecoder(MAX, memory);
        // One read memory for everything, as the server has; a frame still arriving may be read in
        // place, as on plain TCP once the budget holds it, or never, as over TLS.
        const readMemory = Buffer.alloc(readMemorySize);
        const seen: Buffer[] = [];
        for (let at = 0, i = 0; at < bytes.length; i++) {
          const target = (inPlace ? decoder.readTarget() : undefined) ?? readMemory;
          const n = Math.min(readSizes[i % readSizes.length]!, target.length, bytes.length - at);
          bytes.copy(target, 0, at, at + n);
          at += n;
          decoder.push(target.subarray(0, n), (frame) => {
            seen.push(Buffer.from(frame));
            frame.fill(0xee);
          });
          readMemory.fill(0xdd);
        }
        assert.equal(seen.length, frames.length);
        seen.forEach((frame, i) => assert.ok(frame.equals(frames[i]!), `frame ${i} of ${frame.length} bytes`));
        assert.equal(decoder.heldBytes, 0);
      },
    ),
    { numRuns: 150 },
  );
});

test('a frame still arriving holds memory for what has arrived, doubling as more does, and is read in place where that has room', () => {
  const memory = new BufferPool(4 * MAX);
  const decoder = new FrameDecoder(MAX, memory);
  const none = (): void => assert.fail('no frame is complete');
  decoder.push(Buffer.from([0, 0x0f]), none);
  assert.equal(decoder.heldBytes, 0);
  decoder.push(Buffer.from([0, 0, 1, 2]), none);
  assert.equal(decoder.heldBytes, 4096, 'a declared megabyte holds one pooled piece for the 2 bytes in');
  assert.equal(decoder.readTarget(), undefined, 'too little room to read into in place');
  decoder.push(Buffer.alloc(5000), none);
  assert.equal(decoder.heldBytes, 8192);
  decoder.push(Buffer.alloc(30_000), none);
  assert.equal(decoder.heldBytes, 65_536);
  assert.equal(decoder.readTarget()?.length, 65_536 - 35_002, 'the rest of the memory is read into in place');
});

test('frames held back by goOn or not admitted come out whole and in order from later pushes, and the bytes held meanwhile are counted', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 1, max: 20_000 }), { minLength: 1, maxLength: 12 }),
      fc.array(fc.integer({ min: 1, max: 70_000 }), { minLength: 1, maxLength: 10 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }),
      // Ending with a yes, so that every frame is admitted in the end.
      fc.array(fc.boolean(), { maxLength: 10 }).map((a) => [...a, true]),
      fc.boolean(),
      (sizes, readSizes, answers, admissions, readsWhileHeld) => {
        const frames = sizes.map((size, i) => Buffer.alloc(size, i & 0xff));
        const bytes = stream(frames);
        const decoder = new FrameDecoder(MAX, new BufferPool(4 * MAX));
        const seen: Buffer[] = [];
        let asked = 0;
        let admitAsked = 0;
        // Each frame's size is asked about until admitted: the sizes asked are those of the next frame not yet seen.
        const flow = {
          goOn: (): boolean => answers[asked++ % answers.length]!,
          admit: (size: number): boolean => {
            assert.equal(size, frames[seen.length]!.length);
            return admissions[admitAsked++ % admissions.length]!;
          },
        };
        const onFrame = (frame: Buffer): void => void seen.push(Buffer.from(frame));
        for (let at = 0, i = 0; at < bytes.length; i++) {
          const n = Math.min(readSizes[i % readSizes.length]!, bytes.length - at);
          // A connection reads no more while bytes are held back, but pushes no bytes to go on with
          // them; a read that comes all the same is kept behind them.
          while (decoder.holdsUnread && !readsWhileHeld) decoder.push(Buffer.alloc(0), onFrame, flow);
          decoder.push(Buffer.from(bytes.subarray(at, at + n)), onFrame, flow);
          at += n;
        }
        while (decoder.holdsUnread) {
          assert.ok(decoder.heldBytes > 0);
          decoder.push(Buffer.alloc(0), onFrame, flow);
        }
        assert.equal(seen.length, frames.length);
        seen.forEach((frame, i) => assert.ok(frame.equals(frames[i]!), `frame ${i} of ${frame.length} bytes`));
        assert.equal(decoder.heldBytes, 0);
      },
    ),
    { numRuns: 150 },
  );
});

test('a size of zero, below zero or over the limit is refused, whether its prefix arrives whole or split', () => {
  for (const size of [0, -1, MAX + 1]) {
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(size);
    assert.throws(() => new FrameDecoder(MAX, new BufferPool(0)).push(prefix, () => {}), FrameError);
    const split = new FrameDecoder(MAX, new BufferPool(0));
    split.push(prefix.subarray(0, 3), () => {});
    assert.throws(() => split.push(prefix.subarray(3), () => {}), FrameError);
  }
});

test('the buffer pool reuses memory by size and keeps no more than it is allowed to', () => {
  const memory = new BufferPool(64 * 1024);
  const a = memory.take(5000);
  assert.ok(a.length >= 5000);
  memory.give(a);
  assert.equal(memory.take(6000), a, 'a freed piece of the size is taken again');
  const big = [memory.take(40_000), memory.take(40_000)];
  for (const piece of big) memory.give(piece);
  assert.ok(memory.keptBytes <= 64 * 1024);
  const huge = memory.take(2 * 1024 * 1024);
  memory.give(huge);
  assert.ok(memory.keptBytes <= 64 * 1024, 'pieces over the largest pooled size are not kept');
});
