/** A `brook serve` process of its own for a bench scenario, with one wire connection to it. */
import { rm } from 'node:fs/promises';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { WireClient } from '../test/helpers/wire-client.js';

export class BenchBroker {
  private constructor(
    private serve: ServeProcess,
    private connection: WireClient,
    private readonly args: readonly string[],
  ) {}

  /** A broker on a new data directory, logging only warnings, with `flags` added. */
  static async start(flags: readonly string[] = []): Promise<BenchBroker> {
    const args = ['--log-level', 'warn', ...flags];
    const serve = await startServe(args);
    return new BenchBroker(serve, await WireClient.connect(serve.port), args);
  }

  /** The connection; a new one after each restart. */
  get client(): WireClient {
    return this.connection;
  }

  /** Stops the broker cleanly and starts it again on its data; ms from the start until it listens. */
  async restart(): Promise<number> {
    this.connection.close();
    await this.serve.stop();
    const start = performance.now();
    this.serve = await startServe(this.args, this.serve.dataDir);
    const ms = performance.now() - start;
    this.connection = await WireClient.connect(this.serve.port);
    return ms;
  }

  /** Stops the broker and removes its data directory. */
  async stop(): Promise<void> {
    this.connection.close();
    await this.serve.stop();
    await rm(this.serve.dataDir, { recursive: true, force: true });
  }
}
