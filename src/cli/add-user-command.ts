import type { Command } from 'commander';
import { text } from 'node:stream/consumers';
import { SCRAM_MECHANISMS } from '../auth/scram.js';
import { saveSaslUser } from '../auth/users-file.js';

export function addAddUserCommand(program: Command): void {
  program
    .command('add-user')
    .description(
      'add or replace a SASL user in a users file of brook serve --sasl-users-file; the password is read from standard input and only salted SCRAM credentials are stored',
    )
    .requiredOption('--users-file <file>', 'the users file to create or update')
    .requiredOption('--user <name>', 'the user name')
    .action(async (o: { usersFile: string; user: string }) => {
      if (process.stdin.isTTY) process.stderr.write('password (it shows as typed), then Enter and Ctrl-D: ');
      const password = (await text(process.stdin)).replace(/\r?\n$/, '');
      if (password === '') throw new Error('give the password on standard input.');
      await saveSaslUser(o.usersFile, o.user, password, SCRAM_MECHANISMS);
      process.stdout.write(`user '${o.user}' saved in ${o.usersFile} (${SCRAM_MECHANISMS.join(', ')})\n`);
    });
}
