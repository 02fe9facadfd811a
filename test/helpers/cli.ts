import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built command, as `npx brook` runs it. */
export const BROOK_BIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A command still running after this is stopped, so a test expecting it to exit fails instead of hanging. */
const RUN_LIMIT_MS = 60_000;

export function runBrook(args: readonly string[], input?: string | Buffer): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BROOK_BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'], timeout: RUN_LIMIT_MS });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

/** A users file, made by `brook add-user`, in which each of `names` has the password `<name>-secret`. */
export async function usersFileFor(names: readonly string[]): Promise<string> {
  const usersFile = join(await mkdtemp(join(tmpdir(), 'brook-users-')), 'users.json');
  for (const name of names) assert.equal((await runBrook(['add-user', '--users-file', usersFile, '--user', name], `${name}-secret\n`)).code, 0);
  return usersFile;
}
