/** A throwaway CA with a server certificate for 127.0.0.1/localhost and a client certificate, made by openssl. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCerts {
  readonly dir: string;
  readonly caPath: string;
  readonly certPath: string;
  readonly keyPath: string;
  readonly clientCertPath: string;
  readonly clientKeyPath: string;
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly clientCert: Buffer;
  readonly clientKey: Buffer;
}

export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'brook-tls-'));
  const p = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore' });
  };
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=brook test CA', '-keyout', p('ca.key'), '-out', p('ca.pem'));
  const issue = (name: string, subject: string, extensions: string): void => {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', subject, '-keyout', p(`${name}.key`), '-out', p(`${name}.csr`));
    openssl(
      'x509',
      '-req',
      '-in',
      p(`${name}.csr`),
      '-CA',
      p('ca.pem'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-out',
      p(`${name}.pem`),
      '-extfile',
      extensions,
    );
  };
  const serverExt = p('server.ext');
  const clientExt = p('client.ext');
  writeFileSync(serverExt, 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  writeFileSync(clientExt, 'extendedKeyUsage=clientAuth\n');
  issue('server', '/CN=localhost', serverExt);
  issue('client', '/CN=brook test client', clientExt);
  return {
    dir,
    caPath: p('ca.pem'),
    certPath: p('server.pem'),
    keyPath: p('server.key'),
    clientCertPath: p('client.pem'),
    clientKeyPath: p('client.key'),
    ca: readFileSync(p('ca.pem')),
    cert: readFileSync(p('server.pem')),
    key: readFileSync(p('server.key')),
    clientCert: readFileSync(p('client.pem')),
    clientKey: readFileSync(p('client.key')),
  };
}
