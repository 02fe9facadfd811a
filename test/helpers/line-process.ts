/** A child process that prints JSON lines on stdout as it runs (the last one its result); killed at its deadline. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { DEBIAN_PYTHON, PYTHON_CLIENTS } from './external.js';
import { until } from './until.js';

export class LineProcess<Line> {
  readonly lines: Line[] = [];
  private stderr = '';
  private readonly exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly name: string,
    timeoutMs: number,
  ) {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    createInterface({ input: child.stdout! }).on('line', (line) => this.lines.push(JSON.parse(line) as Line));
    child.stderr!.on('data', (b: Buffer) => (this.stderr += b.toString()));
    this.exited = new Promise((resolve) =>
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve(code);
      }),
    );
  }

  /** Runs one of the python client scripts in test/interop/clients/. */
  static python<Line>(script: string, args: readonly (string | number)[], timeoutMs = 120_000): LineProcess<Line> {
    // -B: the scripts import a sibling module, and the tree gets no __pycache__ from it.
    const child = spawn(DEBIAN_PYTHON, ['-B', PYTHON_CLIENTS + script, ...args.map(String)], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin!.on('error', () => {});
    return new LineProcess<Line>(child, script, timeoutMs);
  }

  /** Runs a program, such as a Go client GoClient built. */
  static command<Line>(name: string, binary: string, args: readonly (string | number)[], timeoutMs = 120_000): LineProcess<Line> {
    const child = spawn(binary, args.map(String), { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin!.on('error', () => {});
    return new LineProcess<Line>(child, name, timeoutMs);
  }

  /** Waits until `condition` holds over the lines so far; fails if the process ends first. */
  until(condition: (lines: readonly Line[]) => boolean, what: string, timeoutMs?: number): Promise<void> {
    return until(
      () => {
        if (condition(this.lines)) return true;
        if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`${this.name} ended before ${what}:\n${this.stderr}`);
        return false;
      },
      `${this.name}: ${what}`,
      timeoutMs,
    );
  }

  /** Closes stdin, which the scripts take as "finish up", and waits for a clean exit; returns the last line. */
  async finish(): Promise<Line> {
    this.child.stdin!.end();
    const code = await this.exited;
    if (code !== 0) throw new Error(`${this.name} exited ${code}:\n${this.stderr}`);
    return this.lines.at(-1)!;
  }

  /** Whether the process has not ended. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}
