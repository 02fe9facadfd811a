import { Option, type Command } from 'commander';
import { pino } from 'pino';
import { FLAGS, flagDescription, flagOf, type ServeFlags, type Setting } from '../settings/settings.js';
import { startBroker } from '../broker/start-broker.js';
import { argParser } from './arg-parser.js';
import { describeStartupError } from './startup-error.js';
import { parseFaultSpec } from './fault-spec.js';
import { textLogDestination } from './text-log.js';

/** Flags read here rather than by their kind: a fault rule is checked against the APIs the broker serves. */
const READERS: Readonly<Record<string, (text: string) => unknown>> = { faults: parseFaultSpec };

/** A setting's flag as commander takes it: its help (the description and Kafka's name), how it is read, its default. */
function flagOption(name: string, s: Setting): Option {
  const flag = flagOf(name, s);
  const kafka = s.broker ?? s.kafka;
  const help = `${flagDescription(s)}${kafka === undefined ? '' : ` (${kafka})`}`.replaceAll('`', '');
  const parse = READERS[name] ?? s.kind.parse;
  if (parse === undefined) return new Option(flag, help);
  const option = new Option(`${flag} ${s.kind.arg}`, help);
  const read = argParser(parse);
  if (s.kind.choices !== undefined) option.choices(s.kind.choices);
  else if (s.kind.repeatable) option.argParser((text, before: readonly unknown[] = []) => [...before, read(text)]);
  else option.argParser(read);
  if (s.default !== undefined) option.default(s.default);
  return option;
}

export function addServeCommand(program: Command): void {
  const serve = program.command('serve').description('run the broker');
  const flags = FLAGS.map(([name, s]) => [name, flagOption(name, s)] as const);
  for (const [, option] of flags) serve.addOption(option);
  serve.action(async (given: Readonly<Record<string, unknown>>) => {
    // By setting name, as commander names each by its flag (`--fault` is `fault`).
    const o = Object.fromEntries(flags.map(([name, option]) => [name, given[option.attributeName()]])) as ServeFlags;
    // The TLS files and the log level and format make the tls and logger options; the other flags are options.
    const { tlsCert, tlsKey, tlsCa, tlsClientAuth, logLevel, logFormat, ...options } = o;
    if ((tlsCert === undefined) !== (tlsKey === undefined)) throw new Error('--tls-cert and --tls-key go together.');
    const tls = tlsCert === undefined || tlsKey === undefined ? undefined : { cert: tlsCert, key: tlsKey, ca: tlsCa, clientAuth: tlsClientAuth };
    // Standard output, written asynchronously, as pino does by default; kept at hand for the stop below.
    const output = pino.destination({ dest: 1 });
    const text = logFormat === 'text' || (logFormat === 'auto' && process.stdout.isTTY);
    const logger = pino({ level: logLevel }, text ? textLogDestination(output) : output);
    const broker = await startBroker({ ...options, tls, logger }).catch((err: unknown) => {
      throw new Error(describeStartupError(err, { host: o.host, port: o.port, dataDir: o.dataDir, consolePort: o.consolePort, metricsPort: o.metricsPort }));
    });
    const stop = (signal: NodeJS.Signals): void => {
      // A hang-up of the terminal brook writes to leaves it nowhere to write: a write would fail.
      const speaks = signal !== 'SIGHUP' || !process.stdout.isTTY;
      if (speaks) logger.info({ signal }, 'stopping');
      broker.close().then(
        () => {
          if (speaks) logger.info('stopped');
          // Stopped cleanly, then ended by the hang-up itself, as by default: a normal exit with
          // the terminal gone aborts in Node's own reset of it. The log is written asynchronously
          // and only an exit writes what is left (pino's flush() does not wait for a write under
          // way), so the output is ended, every line written, before the signal ends the process;
          // a terminal that hung up takes nothing more, and its output is not waited for.
          if (signal === 'SIGHUP' && speaks) {
            output.once('close', () => process.kill(process.pid, signal));
            output.end();
          } else if (signal === 'SIGHUP') process.kill(process.pid, signal);
          else process.exit(0);
        },
        (err: Error) => {
          logger.error({ err }, 'unclean stop');
          process.exit(1);
        },
      );
    };
    // SIGHUP too, as a JVM running Kafka stops cleanly on it; Node's default would end brook at once.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
    // Announced only once the signals are handled, so that a stop right after it is a clean one.
    process.stdout.write(`brook listening on ${broker.bootstrap}\n`);
    for (const node of broker.cluster.nodes.slice(1)) process.stdout.write(`brook node ${node.nodeId} listening on ${node.bootstrap}\n`);
  });
}
