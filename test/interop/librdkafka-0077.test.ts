/**
 * librdkafka's own integration test 0077 (compaction), run against `brook serve` with the
 * cleaner's defaults (log.cleaner.backoff.ms 15 s, as Kafka's). Its rounds (one per codec the
 * library was built with, and more records without one) each produce to a compacted topic of
 * 10 KB segments, wait 20 s, and read back exactly the records compaction must keep; the last
 * produces 40,000 gzip records over some 3,900 segments. Topics are created by a stand-in for
 * Kafka's kafka-topics.sh (clients/kafka/bin), through brook's CreateTopics. It runs only when
 * asked (librdkafka-sources.ts says how): its gzip round's cleaning takes a good part of the 20 s
 * the test waits, which a busy machine could overrun.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startServe } from '../helpers/serve-process.js';
import { buildLibrdkafkaTests, howToRun, LIBRDKAFKA_SOURCES, tail } from './librdkafka-sources.js';

const HOW = howToRun('test/interop/librdkafka-0077.test.ts');

test(
  "librdkafka's test 0077: compacted topics, rounds up to 40,000 gzip records, read back as compaction leaves them",
  { skip: LIBRDKAFKA_SOURCES === undefined ? `opt-in, as it can overrun its own 20 s wait on a busy machine: ${HOW}` : false, timeout: 600_000 },
  async (t) => {
    const tests = await buildLibrdkafkaTests(['0077-compaction.c'], 'test/interop/librdkafka-0077.test.ts');
    const serve = await startServe();
    t.after(async () => {
      await serve.stop();
      await rm(serve.dataDir, { recursive: true, force: true });
      await tests.remove();
    });
    const { code, output } = await tests.run('0077', serve.bootstrap);
    const rounds: string[] = output.match(/Compaction test with \S+ compression: PASS/g) ?? [];
    assert.equal(code, 0, `0077 failed after ${rounds.length} rounds:\n${tail(output)}`);
    // Rounds of codecs the packaged library was built without are left out; gzip's is the long one.
    assert.ok(rounds.includes('Compaction test with gzip compression: PASS'), `the gzip round ran: ${rounds.join(', ')}`);
  },
);
