/** HOST:PORT, the form addresses take on the command line and in what clients are given. */

/** HOST:PORT as clients take it: an IPv6 host in brackets. */
export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Parses HOST:PORT (an IPv6 host in brackets). */
export function parseHostPort(text: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):([0-9]+)$/.exec(text);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) throw new Error(`'${text}' is not HOST:PORT`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}
