/**
 * @module test/helpers/tls
 * Throwaway certificates for TLS tests, made with the openssl command line: a CA, and a server
 * certificate it signs for localhost, 127.0.0.1 and ::1. Clients in tests verify against `ca`
 * (never `rejectUnauthorized: false`), so a test proves the chain as a real client would.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** Folder holding every file below; `remove()` deletes it. */
  dir: string;
  /** The CA certificate (PEM) clients trust. */
  ca: Buffer;
  caFile: string;
  /** The server certificate (PEM), for localhost, 127.0.0.1 and ::1. */
  cert: Buffer;
  certFile: string;
  /** Its private key (PEM). */
  key: Buffer;
  keyFile: string;
  /** A second, unrelated key: pairing it with `certFile` is a mismatch. */
  otherKeyFile: string;
  /** Signs another server certificate with the same CA (e.g. to test a reload). */
  issue(name: string, options?: { subjectAltName?: string; commonName?: string }): { cert: Buffer; certFile: string; key: Buffer; keyFile: string };
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Whether the openssl command line is there (tests that need it skip or fail without it). */
export function opensslAvailable(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes a CA and a localhost server certificate (EC P-256, valid one day) in a new temp folder.
 * @example
 *   const certs = makeTestCertificates();
 *   https.get({ host: 'localhost', port, ca: certs.ca }, …)
 */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'roa-tls-'));
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt',
    '-days', '2', '-subj', '/CN=roa test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  let serial = 1;
  const issue: TestCertificates['issue'] = (name, options = {}) => {
    const san = options.subjectAltName ?? 'DNS:localhost,IP:127.0.0.1,IP:::1';
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`);
    openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`,
      '-subj', `/CN=${options.commonName ?? 'localhost'}`], dir);
    openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', String(++serial), '-days', '1',
      '-extfile', `${name}.ext`, '-out', `${name}.crt`], dir);
    const certFile = join(dir, `${name}.crt`);
    const keyFile = join(dir, `${name}.key`);
    return { cert: readFileSync(certFile), certFile, key: readFileSync(keyFile), keyFile };
  };
  const server = issue('server');
  const other = issue('other');
  const caFile = join(dir, 'ca.crt');
  return {
    dir,
    ca: readFileSync(caFile),
    caFile,
    ...server,
    otherKeyFile: other.keyFile,
    issue,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
