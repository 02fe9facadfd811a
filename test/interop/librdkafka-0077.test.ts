/**
 * librdkafka's own integration test 0077 (compaction), built from Debian's librdkafka source
 * package against the packaged library (clients/librdkafka-0077.sh), run against `brook serve`
 * with the cleaner's defaults (log.cleaner.backoff.ms 15 s, as Kafka's). Its rounds (one per
 * codec the library was built with, and more records without one) each produce to a compacted
 * topic of 10 KB segments, wait 20 s, and read back exactly the records compaction must keep;
 * the last produces 40,000 gzip records over some 3,900 segments. Topics are
 * created by a stand-in for Kafka's kafka-topics.sh (clients/kafka/bin), through brook's
 * CreateTopics. It runs only when asked: its gzip round's cleaning takes a good part of the
 * 20 s the test waits, which a busy machine could overrun. The sources are fetched once, as root:
 *   bash test/interop/clients/librdkafka-0077.sh fetch /var/tmp/brook-librdkafka-src
 * and named to the tests: BROOK_LIBRDKAFKA_SOURCES=/var/tmp/brook-librdkafka-src.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PYTHON_CLIENTS, run } from '../helpers/external.js';
import { startServe } from '../helpers/serve-process.js';

const SOURCES = process.env.BROOK_LIBRDKAFKA_SOURCES;
const SCRIPT = join(PYTHON_CLIENTS, 'librdkafka-0077.sh');
const HOW = `bash ${SCRIPT} fetch <dir> (as root), then BROOK_LIBRDKAFKA_SOURCES=<dir> node --import tsx --test test/interop/librdkafka-0077.test.ts`;

test(
  "librdkafka's test 0077: compacted topics, rounds up to 40,000 gzip records, read back as compaction leaves them",
  { skip: SOURCES === undefined ? `opt-in, as it can overrun its own 20 s wait on a busy machine: ${HOW}` : false, timeout: 600_000 },
  async (t) => {
    const sources = SOURCES!;
    assert.ok(existsSync(sources) && readdirSync(sources).some((n) => n.startsWith('librdkafka-')), `librdkafka's sources are not in ${sources}: ${HOW}`);
    const work = await mkdtemp(join(tmpdir(), 'brook-rdkafka-0077-'));
    const serve = await startServe();
    t.after(async () => {
      await serve.stop();
      await rm(serve.dataDir, { recursive: true, force: true });
      await rm(work, { recursive: true, force: true });
    });
    const binary = join(work, 'test-0077');
    const built = await run('bash', [SCRIPT, 'build', sources, binary], undefined, 300_000);
    assert.equal(built.code, 0, `the build failed:\n${built.stderr}`);
    await writeFile(join(work, 'test.conf'), `metadata.broker.list=${serve.bootstrap}\n`);
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(binary, [], {
        cwd: work,
        env: {
          ...process.env,
          TESTS: '0077',
          TEST_KAFKA_VERSION: '3.9.0',
          RDKAFKA_TEST_CONF: join(work, 'test.conf'),
          KAFKA_PATH: join(PYTHON_CLIENTS, 'kafka'),
          BROKERS: serve.bootstrap,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (b: Buffer) => (output += b.toString()));
      child.stderr.on('data', (b: Buffer) => (output += b.toString()));
      child.on('error', reject);
      child.on('close', (exit) => resolve({ code: exit, output }));
    });
    const rounds: string[] = output.match(/Compaction test with \S+ compression: PASS/g) ?? [];
    assert.equal(code, 0, `0077 failed after ${rounds.length} rounds:\n${output.split('\n').slice(-40).join('\n')}`);
    // Rounds of codecs the packaged library was built without are left out; gzip's is the long one.
    assert.ok(rounds.includes('Compaction test with gzip compression: PASS'), `the gzip round ran: ${rounds.join(', ')}`);
  },
);
