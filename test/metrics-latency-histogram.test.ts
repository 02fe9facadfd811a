import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { LatencyHistogram } from '../src/metrics/latency-histogram.js';

const BOUNDS = [0.0005, 0.001, 0.01, 0.1, 1];
const API_NAMES = ['Produce', 'Fetch', 'ListOffsets'];

test("the latency histogram renders exactly what prom-client's own Histogram renders for the same observations", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.oneof(fc.double({ min: 0, max: 3, noNaN: true }), fc.constantFrom(...BOUNDS))), { maxLength: 50 }),
      async (observations) => {
        const ours = new Registry();
        const reference = new Registry();
        const histogram = new LatencyHistogram('t_seconds', 'help', BOUNDS, (key) => API_NAMES[key]!, ours);
        const expected = new Histogram({ name: 't_seconds', help: 'help', labelNames: ['api'], buckets: BOUNDS, registers: [reference] });
        for (const [key, seconds] of observations) {
          histogram.observe(key, seconds);
          expected.observe({ api: API_NAMES[key]! }, seconds);
        }
        assert.equal(await ours.metrics(), await reference.metrics());
        ours.resetMetrics();
        reference.resetMetrics();
        histogram.observe(0, 0.002);
        expected.observe({ api: API_NAMES[0]! }, 0.002);
        assert.equal(await ours.metrics(), await reference.metrics(), 'after a reset');
      },
    ),
  );
});
