/** HOST:PORT, the form addresses take on the command line and in what clients are given. */

/** The ports a client can be sent to (0, "any free port", is only for listening). */
export const CLIENT_PORTS = [1, 65535] as const;

/**
 * A client's IP address as Kafka's `StandardAuthorizer` and `ConnectionQuotas` compare it with an ACL's host or a connection limit's: an IPv4
 * client of a listener on every address, seen as IPv4-mapped IPv6 (`::ffff:a.b.c.d`), is `a.b.c.d`,
 * as Java reads it.
 */
export function clientAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** HOST:PORT as clients take it: an IPv6 host in brackets. */
export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Parses HOST:PORT (an IPv6 host in brackets). */
export function parseHostPort(text: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):([0-9]+)$/.exec(text);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < CLIENT_PORTS[0] || port > CLIENT_PORTS[1]) throw new Error(`'${text}' is not HOST:PORT`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}
