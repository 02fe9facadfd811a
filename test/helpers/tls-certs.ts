/** A throwaway CA with a server certificate for 127.0.0.1/localhost and a client certificate, made in-process by selfsigned. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

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

const DAY_MS = 86_400_000;

/** Certificates valid from a day ago (clocks may differ a little) to two days ahead, signed with SHA-256. */
function validity(): { notBeforeDate: Date; notAfterDate: Date; algorithm: 'sha256'; keySize: number } {
  const now = Date.now();
  return { notBeforeDate: new Date(now - DAY_MS), notAfterDate: new Date(now + 2 * DAY_MS), algorithm: 'sha256', keySize: 2048 };
}

export async function makeTestCerts(): Promise<TestCerts> {
  const dir = mkdtempSync(join(tmpdir(), 'brook-tls-'));
  const ca = await generate([{ name: 'commonName', value: 'brook test CA' }], {
    ...validity(),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const signedByCa = { ...validity(), ca: { key: ca.private, cert: ca.cert } };
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    ...signedByCa,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const client = await generate([{ name: 'commonName', value: 'brook test client' }], {
    ...signedByCa,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  const file = (name: string, pem: string): { path: string; pem: Buffer } => {
    const path = join(dir, name);
    writeFileSync(path, pem);
    return { path, pem: Buffer.from(pem) };
  };
  const caFile = file('ca.pem', ca.cert);
  const certFile = file('server.pem', server.cert);
  const keyFile = file('server.key', server.private);
  const clientCertFile = file('client.pem', client.cert);
  const clientKeyFile = file('client.key', client.private);
  return {
    dir,
    caPath: caFile.path,
    certPath: certFile.path,
    keyPath: keyFile.path,
    clientCertPath: clientCertFile.path,
    clientKeyPath: clientKeyFile.path,
    ca: caFile.pem,
    cert: certFile.pem,
    key: keyFile.pem,
    clientCert: clientCertFile.pem,
    clientKey: clientKeyFile.pem,
  };
}
