/** `brook serve` as a child process, the way a user runs it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BROOK_BIN } from './cli.js';

/** A child process that prints `NAME listening on HOST:PORT` once it listens. */
export interface ListeningProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly bootstrap: string;
  /** Everything printed so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ServeProcess extends ListeningProcess {
  readonly dataDir: string;
}

export async function tempDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'brook-test-'));
}

/**
 * Starts `brook serve --port 0` (unless args name a port) and waits for its listening line;
 * with `fileLimit`, under that limit on open files (`ulimit -n`); `nodeArgs` go to Node itself.
 */
export async function startServe(args: readonly string[] = [], dataDir?: string, fileLimit?: number, nodeArgs: readonly string[] = []): Promise<ServeProcess> {
  const dir = dataDir ?? (await tempDataDir());
  const withPort = args.includes('--port') ? args : ['--port', '0', ...args];
  const command = [process.execPath, ...nodeArgs, BROOK_BIN, 'serve', '--data-dir', dir, ...withPort];
  return {
    ...(await startListening('brook', fileLimit === undefined ? command : ['sh', '-c', `ulimit -n ${fileLimit} && exec "$@"`, 'sh', ...command])),
    dataDir: dir,
  };
}

/** Runs `command` and waits for its line saying that `name` listens. */
export async function startListening(name: string, command: readonly string[]): Promise<ListeningProcess> {
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  // 'close', not 'exit': what the process printed last may still be on its way when it has exited.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const listening = new RegExp(`^${name} listening on [^\\s]*:(\\d+)$`, 'm');
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${out}`)), 15000);
    const look = (): void => {
      const m = listening.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${out}`));
    });
  });
  return {
    child,
    port,
    bootstrap: `127.0.0.1:${port}`,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
