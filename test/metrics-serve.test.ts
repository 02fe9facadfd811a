/** `brook serve --metrics-port`, run as the built binary. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kafkajs } from './helpers/kafkajs.js';
import { scrape } from './helpers/scrape.js';
import { startServe } from './helpers/serve-process.js';
import { until } from './helpers/until.js';

/** The broker's log lines, parsed: pino writes one JSON object a line. */
function logLines(output: string): { level: number; msg: string; [field: string]: unknown }[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

test('serve --metrics-port serves Prometheus text, and says where in its JSON log', async () => {
  const serve = await startServe(['--metrics-port', '0', '--log-level', 'info']);
  try {
    // The JSON log is written apart from the plain line serve waits for: it may come after it.
    await until(() => logLines(serve.output()).some((l) => l.msg.startsWith('listening on')), 'the JSON log says where the metrics are');
    const announced = logLines(serve.output()).find((l) => l.msg.startsWith('listening on'));
    assert.equal(announced?.level, 30, serve.output());
    const metricsPort = announced?.metricsPort;
    assert.ok(typeof metricsPort === 'number', serve.output());
    assert.equal(announced!.msg, `listening on 127.0.0.1:${serve.port}, metrics on http://127.0.0.1:${metricsPort}/metrics, data in ${serve.dataDir}`);

    const producer = kafkajs(serve.bootstrap).producer({ idempotent: true });
    await producer.connect();
    await producer.send({ topic: 'served', messages: [{ value: 'one' }] });
    await producer.disconnect();
    const samples = await scrape(metricsPort);
    assert.equal(samples.get('brook_idempotent_batches_accepted_total'), 1);
    assert.equal(samples.get('brook_request_duration_seconds_count{api="Produce"}'), 1);
  } finally {
    await serve.stop();
  }
});
