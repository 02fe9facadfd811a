/** The log cleaner's metrics, scraped from an embedded broker after it cleaned a compacted partition. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker } from '../src/broker/start-broker.js';
import { buildBatch } from './helpers/batch.js';
import { scrape } from './helpers/scrape.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

const RATIO = 'brook_log_cleaner_dirty_ratio{topic="table",partition="0"}';

test('after a cleaning: bytes read and written, its time, the cleanings, and each partition dirty ratio', async (t) => {
  const broker = await startBroker({ metricsPort: 0, cleanerBackoffMs: 1 });
  const client = await WireClient.connect(broker.port);
  t.after(async () => {
    client.close();
    await broker.close();
  });
  const port = broker.metricsPort!;
  const before = await scrape(port);
  assert.equal(before.get('brook_log_cleaner_cleanings_total'), 0);
  assert.equal(before.get('brook_log_cleaner_cleanings_aborted_total'), 0);
  assert.equal(before.get(RATIO), undefined, 'no compacted partition yet');

  await createTopic(client, 'table', 1, { 'cleanup.policy': 'compact', 'segment.bytes': '1024', 'min.cleanable.dirty.ratio': '0.01' });
  // Forty batches over five keys: segments of a few batches, most records superseded.
  for (let i = 0; i < 40; i++) {
    const batch = buildBatch([{ key: Buffer.from(`k${i % 5}`), value: Buffer.alloc(100, 97 + (i % 26)) }]);
    assert.equal((await produceBatch(client, 'table', 0, batch)).errorCode, 0);
  }
  let after = before;
  // Cleaned, and looked at again: nothing of what it could clean is left dirty.
  await until(async () => {
    after = await scrape(port);
    return (after.get('brook_log_cleaner_cleanings_total') ?? 0) >= 1 && after.get(RATIO) === 0;
  }, 'the partition is cleaned');
  const read = after.get('brook_log_cleaner_read_bytes_total')!;
  const written = after.get('brook_log_cleaner_written_bytes_total')!;
  assert.ok(read > 0, `bytes read: ${read}`);
  assert.ok(written > 0 && written < read, `bytes written: ${written}, fewer than read`);
  assert.ok(after.get('brook_log_cleaner_clean_time_seconds_total')! > 0);
  assert.ok(after.get('brook_log_cleaner_max_clean_time_secs')! > 0);
  assert.equal(after.get('brook_log_cleaner_max_dirty_percent'), 0);
  assert.equal(after.get('brook_log_cleaner_cleanings_aborted_total'), 0);
});
