/**
 * Reads an accepted TCP connection into memory the server lends, instead of a fresh buffer per
 * read as Node does by default: that churn set off V8's full collections under produce load.
 * Node offers such reads (`onread`) only to sockets created with the option, so the accepted
 * socket, taken paused, gives its handle to one.
 */
import { Socket } from 'node:net';

export interface LentReads {
  /** Memory for the next read. */
  target(): Buffer;
  /** `chunk` is the part of target() the read filled, lent for the call only. */
  received(chunk: Buffer): void;
}

/**
 * The socket now reading `accepted`'s connection; undefined, with `accepted` left as it was, when
 * it has no handle to give (it closed already, or a Node release keeps it elsewhere).
 */
export function withLentReads(accepted: Socket, reads: LentReads): Socket | undefined {
  const shell = accepted as unknown as { _handle?: unknown };
  const handle = shell._handle;
  if (handle === null || handle === undefined) return undefined;
  shell._handle = null;
  accepted.destroy();
  return new Socket({
    handle,
    readable: true,
    writable: true,
    onread: { buffer: () => reads.target(), callback: (n: number, memory: Uint8Array) => reads.received((memory as Buffer).subarray(0, n)) },
  } as ConstructorParameters<typeof Socket>[0]);
}
