/** A listener other than the broker's own failing to listen, named so it is not taken for the broker's port. */
import { formatHostPort } from './host-port.js';

/**
 * "cannot serve WHAT on HOST:PORT: …", keeping the listen error's own fields (code, syscall,
 * address, port), from which `brook serve` explains it in one sentence.
 */
export function listenError(what: string, host: string, port: number, err: unknown): Error {
  const { code, syscall, address, port: tried, message } = err as NodeJS.ErrnoException & { address?: string; port?: number };
  return Object.assign(new Error(`cannot serve ${what} on ${formatHostPort(host, port)}: ${message}`), { code, syscall, address, port: tried });
}
