/**
 * The Go clients in test/interop/clients/, built offline from Debian's golang-*-dev sources:
 * GOPATH mode, no module proxy, a build cache of its own that goes with the binary.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { run } from '../helpers/external.js';
import { LineProcess } from '../helpers/line-process.js';

/** Where Debian's golang-*-dev packages put their sources. */
export const DEBIAN_GOPATH = '/usr/share/gocode';

export interface GoClient {
  /** Runs the client and parses the JSON line it prints last. */
  run<T>(args: readonly (string | number)[]): Promise<T>;
  /** Starts the client, printing JSON lines, which finishes up when its stdin closes. */
  start<Line>(args: readonly (string | number)[], timeoutMs?: number): LineProcess<Line>;
  remove(): Promise<void>;
}

/** Builds test/interop/clients/NAME once into a temporary directory. */
export async function buildGoClient(name: string): Promise<GoClient> {
  const dir = await mkdtemp(join(tmpdir(), `brook-go-${name}-`));
  const binary = join(dir, name);
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    GO111MODULE: 'off',
    GOPATH: DEBIAN_GOPATH,
    GOCACHE: join(dir, 'cache'),
    GOPROXY: 'off',
    GOTOOLCHAIN: 'local',
    // Sarama's zstd then builds without cgo (zstd unused here), so no C compiler is needed.
    CGO_ENABLED: '0',
  };
  try {
    await promisify(execFile)('go', ['build', '-o', binary, '.'], { cwd: fileURLToPath(new URL(`clients/${name}/`, import.meta.url)), env });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    async run<T>(args: readonly (string | number)[]): Promise<T> {
      const r = await run(binary, args.map(String));
      if (r.code !== 0) throw new Error(`${name} ${args.join(' ')} exited ${r.code}:\n${r.stderr}\n${r.stdout}`);
      return JSON.parse(r.stdout.trimEnd().split('\n').at(-1) ?? '') as T;
    },
    start: <Line>(args: readonly (string | number)[], timeoutMs?: number) => LineProcess.command<Line>(name, binary, args, timeoutMs),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
