/** One sentence for a failed start, naming what the user can fix, instead of a stack trace. */
import { formatHostPort } from '../server/host-port.js';

interface SystemError extends Error {
  code?: string;
  syscall?: string;
  /** Where a failed listen tried to listen: the Kafka, console or metrics port. */
  address?: string;
  port?: number;
}

const LISTEN_REASONS: Record<string, string> = {
  EADDRINUSE: 'is already in use',
  EACCES: 'needs privileges this process does not have',
  EADDRNOTAVAIL: 'is not an address of this machine',
};

const DIR_REASONS: Record<string, string> = {
  EEXIST: 'it is a file, not a directory',
  ENOTDIR: 'part of its path is a file, not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
};

export interface StartupPlace {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly consolePort?: number | undefined;
  readonly metricsPort?: number | undefined;
}

export function describeStartupError(err: unknown, where: StartupPlace): string {
  const e = err as SystemError;
  if (e.syscall === 'listen' && e.code !== undefined) {
    const port = e.port ?? where.port;
    // The Kafka port is the one a user thinks of first; the others are named.
    const what = port === where.port ? '' : port === where.consolePort ? ' (the console port)' : port === where.metricsPort ? ' (the metrics port)' : '';
    const address = formatHostPort(e.address ?? where.host, port);
    return `cannot listen on ${address}${what}: the address ${LISTEN_REASONS[e.code] ?? `failed (${e.code})`}.`;
  }
  if (e.code !== undefined && e.syscall !== undefined) {
    // mkdir answers ENOENT for a parent that exists only where no directory can be made (/proc).
    const reason = e.code === 'ENOENT' && e.syscall === 'mkdir' ? 'it cannot be made there' : DIR_REASONS[e.code];
    return `cannot use data directory ${where.dataDir}: ${reason ?? e.message}.`;
  }
  return `${e.message ?? String(err)}`;
}
