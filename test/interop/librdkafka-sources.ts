/**
 * librdkafka's own integration tests, built from Debian's librdkafka source package against the
 * packaged library (clients/librdkafka-tests.sh), for the tests that run them when asked. The
 * sources are fetched once, as root:
 *   bash test/interop/clients/librdkafka-tests.sh fetch /var/tmp/brook-librdkafka-src
 * and named to the tests: BROOK_LIBRDKAFKA_SOURCES=/var/tmp/brook-librdkafka-src.
 * The runner loads another librdkafka in place of the packaged one when it is named
 * (BROOK_LIBRDKAFKA_LIBRARY, the directory `librdkafka-tests.sh library` built it into), such as
 * a release with fixes the packaged one lacks.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PYTHON_CLIENTS, run } from '../helpers/external.js';

export const LIBRDKAFKA_SOURCES = process.env.BROOK_LIBRDKAFKA_SOURCES;
const library = process.env.BROOK_LIBRDKAFKA_LIBRARY;
export const LIBRDKAFKA_LIBRARY = library === undefined ? undefined : resolve(library);
const SCRIPT = join(PYTHON_CLIENTS, 'librdkafka-tests.sh');

/** How to run `testFile` with the sources. */
export const howToRun = (testFile: string): string =>
  `bash ${SCRIPT} fetch <dir> (as root), then BROOK_LIBRDKAFKA_SOURCES=<dir> node --import tsx --test ${testFile}`;

export interface LibrdkafkaTests {
  /** Runs the tests whose numbers `tests` names (librdkafka's TESTS) against `bootstrap`: the exit code and all it printed. */
  run(tests: string, bootstrap: string, env?: Record<string, string>): Promise<{ code: number | null; output: string }>;
  remove(): Promise<void>;
}

/** Builds the runner of the tests in `files` (such as 0077-compaction.c) into a directory of its own. */
export async function buildLibrdkafkaTests(files: readonly string[], testFile: string): Promise<LibrdkafkaTests> {
  const sources = LIBRDKAFKA_SOURCES!;
  assert.ok(
    existsSync(sources) && readdirSync(sources).some((n) => n.startsWith('librdkafka-')),
    `librdkafka's sources are not in ${sources}: ${howToRun(testFile)}`,
  );
  assert.ok(
    LIBRDKAFKA_LIBRARY === undefined || existsSync(join(LIBRDKAFKA_LIBRARY, 'librdkafka.so.1')),
    `no librdkafka.so.1 in ${LIBRDKAFKA_LIBRARY}: bash ${SCRIPT} library <librdkafka's sources> <dir> builds one`,
  );
  const work = await mkdtemp(join(tmpdir(), 'brook-rdkafka-tests-'));
  const binary = join(work, 'tests');
  const built = await run('bash', [SCRIPT, 'build', sources, binary, ...files], undefined, 300_000);
  if (built.code !== 0) {
    await rm(work, { recursive: true, force: true });
    assert.fail(`the build failed:\n${built.stderr}`);
  }
  return {
    async run(tests, bootstrap, env = {}) {
      await writeFile(join(work, 'test.conf'), `metadata.broker.list=${bootstrap}\n`);
      return new Promise((resolve, reject) => {
        const child = spawn(binary, [], {
          cwd: work,
          env: {
            ...process.env,
            TESTS: tests,
            TEST_KAFKA_VERSION: '3.9.0',
            RDKAFKA_TEST_CONF: join(work, 'test.conf'),
            KAFKA_PATH: join(PYTHON_CLIENTS, 'kafka'),
            BROKERS: bootstrap,
            ...(LIBRDKAFKA_LIBRARY === undefined ? {} : { LD_LIBRARY_PATH: LIBRDKAFKA_LIBRARY }),
            ...env,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (b: Buffer) => (output += b.toString()));
        child.stderr.on('data', (b: Buffer) => (output += b.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, output }));
      });
    },
    remove: () => rm(work, { recursive: true, force: true }),
  };
}

/** The last lines of a run's output, for a failure's message. */
export const tail = (output: string): string => output.split('\n').slice(-40).join('\n');
