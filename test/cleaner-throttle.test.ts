/** log.cleaner.io.max.bytes.per.second: the throttle rule against a model clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { startBroker } from '../src/broker/start-broker.js';
import { IoThrottle, THROTTLE_CHECK_MS } from '../src/log/cleaner/io-throttle.js';

/** A clock whose time moves only by the work's own durations and the throttle's waits. */
function modelClock(): { now: () => number; sleep: (ms: number) => Promise<void>; advance: (ms: number) => void; slept: () => number } {
  let time = 0;
  let slept = 0;
  return {
    now: () => time,
    sleep: async (ms) => {
      time += ms;
      slept += ms;
    },
    advance: (ms) => {
      time += ms;
    },
    slept: () => slept,
  };
}

test('whenever the throttle waits, the cleaner has read and written no faster than the limit', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 10_000_000 }),
      fc.array(fc.record({ bytes: fc.integer({ min: 0, max: 5_000_000 }), ms: fc.integer({ min: 0, max: 500 }) }), { maxLength: 60 }),
      async (limit, work) => {
        const clock = modelClock();
        const throttle = new IoThrottle(limit, clock);
        let total = 0;
        for (const { bytes, ms } of work) {
          clock.advance(ms);
          total += bytes;
          const before = clock.slept();
          await throttle.maybeThrottle(bytes);
          if (clock.slept() > before) assert.ok(total <= (clock.now() * limit) / 1000 + 1e-6, `${total} bytes in ${clock.now()} ms at ${limit} B/s`);
        }
      },
    ),
  );
});

test('an unlimited cleaner never waits, and a limited one waits for what it is ahead', async () => {
  const unlimited = modelClock();
  const free = new IoThrottle(Number.MAX_SAFE_INTEGER, unlimited);
  for (let i = 0; i < 100; i++) {
    unlimited.advance(THROTTLE_CHECK_MS);
    await free.maybeThrottle(1 << 30);
  }
  assert.equal(unlimited.slept(), 0);

  const limited = modelClock();
  const slow = new IoThrottle(1_000_000, limited);
  limited.advance(THROTTLE_CHECK_MS);
  await slow.maybeThrottle(3_000_000);
  // 3 MB at 1 MB/s takes 3 s, of which 300 ms have passed.
  assert.equal(limited.slept(), 3000 - THROTTLE_CHECK_MS);
});

test("the limit is of Kafka's type double: a fraction is taken, 0 refused", async () => {
  const broker = await startBroker({ port: 0, cleanerIoMaxBytesPerSecond: 2.5 });
  await broker.close();
  await assert.rejects(startBroker({ port: 0, cleanerIoMaxBytesPerSecond: 0 }), /cleanerIoMaxBytesPerSecond/);
});
