import type { Command } from 'commander';
import { SCRAM_MECHANISMS } from '../auth/scram.js';
import { saveSaslUser } from '../auth/users-file.js';
import { readPassword } from './password-input.js';

export function addAddUserCommand(program: Command): void {
  program
    .command('add-user')
    .description(
      'add or replace a SASL user in a users file of brook serve --sasl-users-file; the password is read from standard input and only salted SCRAM credentials are stored',
    )
    .requiredOption('--users-file <file>', 'the users file to create or update')
    .requiredOption('--user <name>', 'the user name')
    .action(async (o: { usersFile: string; user: string }) => {
      const password = await readPassword();
      await saveSaslUser(o.usersFile, o.user, password, SCRAM_MECHANISMS);
      process.stdout.write(`user '${o.user}' saved in ${o.usersFile} (${SCRAM_MECHANISMS.join(', ')})\n`);
    });
}
