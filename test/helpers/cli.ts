import { spawn } from 'node:child_process';
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
