/**
 * Whether connections brook closes keep their --max-connections slot: 1,020 connections (past the
 * default limit of 1,000) each send Metadata before SASL authentication and are closed by brook;
 * then the time a fresh client takes to connect and be answered, beside the same on the idle broker.
 */
import { join } from 'node:path';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { MetadataRequest } from '../src/protocol/messages/metadata.js';
import { runBrook } from '../test/helpers/cli.js';
import { startServe, tempDataDir } from '../test/helpers/serve-process.js';
import { WireClient } from '../test/helpers/wire-client.js';
import { compared, type Row } from './table.js';

/** At once, so that the bench process holds few sockets. */
const WAVE = 100;

/** ms from connecting to ApiVersions' answer (allowed before authentication) for a fresh client. */
async function freshClientMs(port: number): Promise<number> {
  const start = performance.now();
  const c = await WireClient.connect(port);
  try {
    await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'bench', clientSoftwareVersion: '1' });
    return performance.now() - start;
  } finally {
    c.close();
  }
}

/** Opens a connection that sends Metadata unauthenticated and waits until brook closes it. */
async function closedByBrook(port: number): Promise<void> {
  const c = await WireClient.connect(port);
  c.sendRaw(
    c.frame(MetadataRequest, 9, {
      topics: [],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    }),
  );
  const answer = await c.nextFrame(30_000);
  c.close();
  if (answer !== undefined) throw new Error('brook answered Metadata before SASL authentication');
}

export async function closedConnectionsBench(smoke: boolean): Promise<Row[]> {
  const count = smoke ? 120 : 1020;
  const dir = await tempDataDir();
  const usersFile = join(dir, 'users.json');
  if ((await runBrook(['add-user', '--users-file', usersFile, '--user', 'bench'], 'bench-secret\n')).code !== 0) throw new Error('add-user failed');
  const serve = await startServe(['--log-level', 'warn', '--sasl-users-file', usersFile, '--failed-authentication-delay-ms', '0'], join(dir, 'data'));
  try {
    const idle = await freshClientMs(serve.port);
    for (let done = 0; done < count; done += WAVE) {
      await Promise.all(Array.from({ length: Math.min(WAVE, count - done) }, () => closedByBrook(serve.port)));
    }
    const after = await freshClientMs(serve.port);
    return [compared(`fresh client's connect + ApiVersions after ${count} connections closed by brook (SASL on) (ms)`, after, idle, 'idle broker', 1)];
  } finally {
    await serve.stop();
  }
}
