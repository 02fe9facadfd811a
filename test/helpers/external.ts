/** Runs the Debian-packaged clients (kcat, Debian's python3 with confluent-kafka and kafka-python). */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Debian's interpreter: the one python3-confluent-kafka and python3-kafka install into. */
export const DEBIAN_PYTHON = '/usr/bin/python3';
export const PYTHON_CLIENTS = fileURLToPath(new URL('../interop/clients/', import.meta.url));

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function run(command: string, args: readonly string[], input?: string, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

/** Runs one of the python client scripts and parses the JSON it prints last. */
export async function runPython<T>(script: string, args: readonly (string | number)[]): Promise<T> {
  const r = await run(DEBIAN_PYTHON, [PYTHON_CLIENTS + script, ...args.map(String)]);
  if (r.code !== 0) throw new Error(`${script} exited ${r.code}:\n${r.stderr}\n${r.stdout}`);
  const last = r.stdout.trimEnd().split('\n').at(-1) ?? '';
  return JSON.parse(last) as T;
}
