/** A password given on standard input, one line, for commands that take one. */
import { text } from 'node:stream/consumers';

export async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password (it shows as typed), then Enter and Ctrl-D: ');
  const password = (await text(process.stdin)).replace(/\r?\n$/, '');
  if (password === '') throw new Error('give the password on standard input.');
  return password;
}
