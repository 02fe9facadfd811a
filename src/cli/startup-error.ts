/** One sentence for a failed start, naming what the user can fix, instead of a stack trace. */
import { formatHostPort } from '../server/host-port.js';

interface SystemError extends Error {
  code?: string;
  syscall?: string;
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

export function describeStartupError(err: unknown, where: { host: string; port: number; dataDir: string }): string {
  const e = err as SystemError;
  if (e.syscall === 'listen' && e.code !== undefined) {
    return `cannot listen on ${formatHostPort(where.host, where.port)}: the address ${LISTEN_REASONS[e.code] ?? `failed (${e.code})`}.`;
  }
  if (e.code !== undefined && e.syscall !== undefined) {
    // mkdir answers ENOENT for a parent that exists only where no directory can be made (/proc).
    const reason = e.code === 'ENOENT' && e.syscall === 'mkdir' ? 'it cannot be made there' : DIR_REASONS[e.code];
    return `cannot use data directory ${where.dataDir}: ${reason ?? e.message}.`;
  }
  return `${e.message ?? String(err)}`;
}
