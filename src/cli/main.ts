#!/usr/bin/env node
import { Command } from 'commander';
import { addReplayCommand } from './replay-command.js';

const program = new Command('brook').description('a Kafka-wire-compatible broker whose idempotent producer is exact');
addReplayCommand(program);
await program.parseAsync(process.argv);
