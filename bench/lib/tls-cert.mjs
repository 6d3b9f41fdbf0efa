/**
 * @module A throwaway CA and a certificate it signs for 127.0.0.1 and localhost (EC P-256), made once per
 * harness run with the openssl command line, for the TLS scenario's servers (all of them load the same
 * pair) and for the harness's sanity checks, which verify the chain against the CA as a real client would.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

function openssl(args, cwd) {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

const EC_P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/**
 * Makes `dir` (removed when this process exits) holding ca.crt, server.crt and server.key.
 * @param {string} dir a directory of its own inside the harness's temp directory
 * @returns {{ dir: string, ca: Buffer, caFile: string, certFile: string, keyFile: string }}
 * @example
 *   const certs = makeBenchCertificates(path.join(scriptDirectory(), 'tls'));
 *   https.get({ host: '127.0.0.1', port, ca: certs.ca }, …)
 */
export function makeBenchCertificates(dir) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  openssl(['req', '-x509', ...EC_P256, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=roa bench CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  writeFileSync(path.join(dir, 'server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n');
  openssl(['req', ...EC_P256, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '2', '-days', '1',
    '-extfile', 'server.ext', '-out', 'server.crt'], dir);
  const caFile = path.join(dir, 'ca.crt');
  return { dir, ca: readFileSync(caFile), caFile, certFile: path.join(dir, 'server.crt'), keyFile: path.join(dir, 'server.key') };
}
