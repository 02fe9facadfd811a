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
        assert.equal(decoder.pendingFrameSize, 0);
      },
    ),
    { numRuns: 150 },
  );
});

test('the declared size of a frame still arriving is known once its prefix is in, even split', () => {
  const decoder = new FrameDecoder(MAX, new BufferPool(MAX));
  const none = (): void => assert.fail('no frame is complete');
  decoder.push(Buffer.from([0, 0]), none);
  assert.equal(decoder.pendingFrameSize, 0);
  decoder.push(Buffer.from([0x50, 0x00, 1, 2]), none);
  assert.equal(decoder.pendingFrameSize, 4 + 0x5000);
  assert.equal(decoder.readTarget()?.length, 0x5000 - 2, 'most of the frame can be read in place');
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
