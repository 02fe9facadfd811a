#!/usr/bin/env node
import { createRequire } from 'node:module';
import { Command } from 'commander';
import { addAclsCommand } from './acls-command.js';
import { addAddUserCommand } from './add-user-command.js';
import { addProducersCommand } from './producers-command.js';
import { addReplayCommand } from './replay-command.js';
import { addServeCommand } from './serve-command.js';
import { addTransactionsCommand } from './transactions-command.js';
import { HELP_LAYOUT, HELP_OUTPUT } from './help-layout.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
const program = new Command('brook').description('a Kafka-wire-compatible broker whose idempotent producer is exact').version(version);
// Before the commands are added, which take both from the program.
program.configureHelp(HELP_LAYOUT).configureOutput(HELP_OUTPUT);
addReplayCommand(program);
addServeCommand(program);
addProducersCommand(program);
addTransactionsCommand(program);
addAddUserCommand(program);
addAclsCommand(program);
try {
  await program.parseAsync(process.argv);
} catch (err) {
  // Start-up failures (port in use, unwritable data directory) are one sentence, not a stack trace.
  process.stderr.write(`brook: ${(err as Error).message}\n`);
  process.exit(1);
}
