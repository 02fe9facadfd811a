import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runBrook } from './helpers/cli.js';
import { startServe, tempDataDir } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { valuesBatch } from './helpers/batch.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

/** One sentence on standard error, no stack trace, a non-zero exit. */
function assertOneSentence(r: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, pattern);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
}

test('serve prints its listening line, serves, and stops cleanly on SIGTERM, SIGINT and SIGHUP', async () => {
  // SIGHUP too, as a JVM running Kafka stops on it: Node's default would end the process uncleanly.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    const serve = await startServe();
    assert.match(serve.output(), new RegExp(`listening on 127\\.0\\.0\\.1:${serve.port}`));
    const c = await WireClient.connect(serve.port);
    const res = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'cli-test', clientSoftwareVersion: '1' });
    assert.equal(res.errorCode, 0);
    c.close();
    // After a hang-up, stopped cleanly and then ended by the signal, as by default.
    assert.equal(await serve.stop(signal), signal === 'SIGHUP' ? null : 0);
    assert.equal(serve.child.signalCode, signal === 'SIGHUP' ? 'SIGHUP' : null);
    assert.match(serve.output(), /"msg":"stopped"/);
    assert.deepEqual(
      (await readdir(serve.dataDir)).filter((name) => name.startsWith('.lock')),
      [],
      'the lock is released',
    );
  }
});

test('--retention-check-interval-ms sets how soon retention deletes old segments', async () => {
  const serve = await startServe(['--segment-bytes', '1024', '--retention-bytes', '2048', '--retention-check-interval-ms', '50']);
  const c = await WireClient.connect(serve.port);
  try {
    await createTopic(c, 'kept-short', 1);
    for (let i = 0; i < 20; i++) assert.equal((await produceBatch(c, 'kept-short', 0, valuesBatch(3, {}, 'v'.repeat(100)))).errorCode, 0);
    const earliest = async (): Promise<bigint> => {
      const res = await c.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
        replicaId: -1,
        isolationLevel: 0,
        topics: [{ name: 'kept-short', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2n, maxNumOffsets: 1 }] }],
        timeoutMs: 0,
      });
      return res.topics[0]!.partitions[0]!.offset;
    };
    const deadline = Date.now() + 10_000;
    while ((await earliest()) === 0n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok((await earliest()) > 0n, 'old segments deleted well before the default five minutes');
  } finally {
    c.close();
    await serve.stop();
  }
});

test('--version prints the package version', async () => {
  const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  const r = await runBrook(['--version']);
  assert.deepEqual([r.code, r.stdout.trim()], [0, version]);
});

test('bad flags are refused with one sentence', async () => {
  assertOneSentence(await runBrook(['serve', '--port', 'abc']), /--port.*whole number/);
  assertOneSentence(await runBrook(['serve', '--flush', 'sometimes']), /--flush must be none, always or interval:<ms>/);
  assertOneSentence(await runBrook(['serve', '--advertised-listener', 'nohost']), /is not HOST:PORT/);
  assertOneSentence(await runBrook(['serve', '--bogus']), /unknown option '--bogus'/);
  assertOneSentence(await runBrook(['serve', '--log-level', 'loud']), /Allowed choices are fatal, error, warn, info, debug, trace/);
  assertOneSentence(await runBrook(['serve', '--tls-cert', '/nonexistent.pem']), /cannot read \/nonexistent.pem: ENOENT/);
  assertOneSentence(await runBrook(['serve', '--connections-max-idle-ms', '2147483648']), /--connections-max-idle-ms.*from 1 to 2147483647/);
  assertOneSentence(await runBrook(['serve', '--max-connections-per-ip-overrides', 'constructor:3']), /'constructor:3' is not an IP address and a count/);
  assertOneSentence(await runBrook(['serve', '--max-connections-per-ip-overrides', '127.0.0.1:x']), /--max-connections-per-ip-overrides.*whole number from 0/);
  // As Kafka: every address is where to listen, not an address clients can be sent to.
  for (const host of ['0.0.0.0', '::']) {
    assertOneSentence(
      await runBrook(['serve', '--port', '0', '--host', host]),
      new RegExp(`^brook: host ${host} listens on every address but is not one clients can connect to: give .*--advertised-listener HOST:PORT`, 'm'),
    );
  }
});

test('a data directory that cannot be used is one sentence, not a stack trace', async () => {
  const file = join(await tempDataDir(), 'a-file');
  await writeFile(file, 'x');
  assertOneSentence(
    await runBrook(['serve', '--port', '0', '--data-dir', file]),
    /^brook: cannot use data directory .*a-file: it is a file, not a directory\.$/m,
  );
  // Under /proc, mkdir answers ENOENT although the parent exists: Node's recursive mkdir never settles there.
  assertOneSentence(
    await runBrook(['serve', '--port', '0', '--data-dir', '/proc/brook-data']),
    /^brook: cannot use data directory \/proc\/brook-data: it cannot be made there\.$/m,
  );
  assertOneSentence(
    await runBrook(['serve', '--port', '0', '--data-dir', join(file, 'below')]),
    /^brook: cannot use data directory .*a-file\/below: part of its path is a file, not a directory\.$/m,
  );
});

test('a port in use is one sentence', async () => {
  const first = await startServe();
  try {
    const r = await runBrook(['serve', '--port', String(first.port), '--data-dir', await tempDataDir()]);
    assertOneSentence(r, new RegExp(`^brook: cannot listen on 127\\.0\\.0\\.1:${first.port}: the address is already in use\\.$`, 'm'));
    // The console and metrics ports are explained alike, each named.
    for (const [flag, name] of [
      ['--console-port', 'console'],
      ['--metrics-port', 'metrics'],
    ] as const) {
      const taken = await runBrook(['serve', '--port', '0', flag, String(first.port), '--data-dir', await tempDataDir()]);
      assertOneSentence(
        taken,
        new RegExp(`^brook: cannot listen on 127\\.0\\.0\\.1:${first.port} \\(the ${name} port\\): the address is already in use\\.$`, 'm'),
      );
    }
  } finally {
    await first.stop();
  }
});

test('a data directory is served by one broker at a time; a lock left by a killed broker is taken over', async () => {
  const dataDir = await tempDataDir();
  const first = await startServe([], dataDir);
  try {
    const r = await runBrook(['serve', '--port', '0', '--data-dir', dataDir]);
    assertOneSentence(r, new RegExp(`^brook: data directory ${dataDir} is in use by process ${first.child.pid}$`, 'm'));
  } finally {
    await first.stop('SIGKILL');
  }
  const second = await startServe([], dataDir);
  assert.equal(await second.stop(), 0, 'started over the dead process lock and stopped cleanly');
});

test('a lock naming a live process id is taken over when a different process now holds the id (reused after a kill -9)', async () => {
  const dataDir = await tempDataDir();
  const stat = await readFile('/proc/self/stat', 'utf8');
  const started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  // This test's own process id is alive; the start time written beside it first is not this process's.
  await writeFile(join(dataDir, '.lock'), `${process.pid} 1\n`);
  const serve = await startServe([], dataDir);
  assert.equal(await serve.stop(), 0, 'started over a lock whose process id was reused');
  // The lock of a live process keeps others out, as does one holding an id alone (as written before start times).
  for (const lock of [`${process.pid} ${started}\n`, `${process.pid}\n`]) {
    await writeFile(join(dataDir, '.lock'), lock);
    assertOneSentence(await runBrook(['serve', '--port', '0', '--data-dir', dataDir]), new RegExp(`is in use by process ${process.pid}$`, 'm'));
  }
});
