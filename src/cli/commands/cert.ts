/**
 * @module cli/commands/cert
 * `roa cert`: a local CA and a server certificate it signs, for HTTPS on a developer's machine,
 * made by the openssl command line (no CA code of roa's own).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { loadTlsCredentials } from '../../tls/credentials.js';
import { parseInteger, parseList } from '../options.js';

export const DEFAULT_CERT_DIR = './data/tls';
export const DEFAULT_CERT_HOSTS = ['localhost', '127.0.0.1', '::1'];
/** Apple's platforms refuse TLS server certificates valid longer than 825 days, even from a private CA. */
const MAX_DAYS = 825;
const CA_DAYS = 3650;
/** A DNS name or wildcard: letters, digits, '-', '.', a leading '*.'; nothing that could break the openssl extension file. */
const DNS_NAME = /^(\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export interface LocalCertificateOptions {
  /** Folder for ca.crt, ca.key, cert.pem and key.pem; created when absent. */
  out: string;
  /** DNS names and IP addresses the server certificate is for. */
  hosts: string[];
  /** How long the server certificate is valid. */
  days: number;
}

export interface LocalCertificates {
  caFile: string;
  caKeyFile: string;
  certFile: string;
  keyFile: string;
  /** False when ca.crt and ca.key were already there and were used as they are. */
  caCreated: boolean;
}

/** The subjectAltName value for `hosts`: `DNS:` names and `IP:` addresses; a clear error for anything else. */
export function subjectAltName(hosts: string[]): string {
  if (hosts.length === 0) throw new Error('--hosts needs at least one name or address');
  return hosts
    .map((host) => {
      if (isIP(host) !== 0) return `IP:${host}`;
      if (host.length <= 253 && DNS_NAME.test(host)) return `DNS:${host}`;
      throw new Error(`--hosts: '${host}' is neither a DNS name nor an IP address`);
    })
    .join(',');
}

/** Runs openssl in `cwd`; its complaint becomes a one-line error, a missing binary a hint. */
function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') throw new Error('openssl not found on PATH: install it (Debian/Ubuntu: apt-get install openssl), or follow the openssl recipe in the README', { cause: err });
    // Its own words, without progress lines and the library's `<hex>:error:…` trace.
    const said = (e.stderr?.toString() ?? '').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/^[0-9A-F]{8,}:|^subject=|self-signature ok$/.test(l));
    throw new Error(`openssl ${args[0]} failed: ${said.slice(0, 2).join(' ') || e.message}`, { cause: err });
  }
}

/** The CA already in `out`, checked: both files, a CA certificate, not expired. */
function existingCa(caFile: string, caKeyFile: string): boolean {
  const haveCert = existsSync(caFile);
  const haveKey = existsSync(caKeyFile);
  if (!haveCert && !haveKey) return false;
  if (!haveCert || !haveKey) throw new Error(`${haveCert ? caKeyFile : caFile} is missing beside ${haveCert ? caFile : caKeyFile}: restore it, or remove both to make a new CA`);
  const ca = new X509Certificate(readFileSync(caFile));
  if (!ca.ca) throw new Error(`${caFile} is not a CA certificate: remove ca.crt and ca.key to make a new CA`);
  if (Date.parse(ca.validTo) <= Date.now()) throw new Error(`the CA in ${caFile} expired on ${ca.validTo}: remove ca.crt and ca.key to make a new one`);
  return true;
}

/**
 * Makes (or reuses) a local CA in `out` and a server certificate it signs for `hosts`: EC P-256,
 * keys with mode 0600. Files are made in a private folder inside `out` and moved into place, so a
 * failure leaves what was there.
 * @example
 *   const files = makeLocalCertificates({ out: './data/tls', hosts: ['localhost', '127.0.0.1'], days: 397 });
 *   // roa serve --tls-cert ./data/tls/cert.pem --tls-key ./data/tls/key.pem
 */
export function makeLocalCertificates(opts: LocalCertificateOptions): LocalCertificates {
  const san = subjectAltName(opts.hosts);
  // Absolute: openssl runs in the work folder.
  const out = resolve(opts.out);
  mkdirSync(out, { recursive: true });
  const files = {
    caFile: join(out, 'ca.crt'),
    caKeyFile: join(out, 'ca.key'),
    certFile: join(out, 'cert.pem'),
    keyFile: join(out, 'key.pem'),
  };
  const caCreated = !existingCa(files.caFile, files.caKeyFile);
  // mkdtemp makes the folder 0700: keys are never readable by others, not even before the chmod.
  const work = mkdtempSync(join(out, '.roa-cert-'));
  try {
    const p256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    if (caCreated) {
      openssl(['req', '-x509', ...p256, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', String(CA_DAYS),
        '-subj', '/CN=roa local development CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], work);
    }
    const caCert = caCreated ? join(work, 'ca.crt') : files.caFile;
    const caKey = caCreated ? join(work, 'ca.key') : files.caKeyFile;
    writeFileSync(join(work, 'server.ext'),
      `subjectAltName=${san}\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n`);
    // The CN is informational (clients match the subjectAltName, RFC 6125 §6.4.4); at most 64 characters.
    openssl(['req', ...p256, '-keyout', 'key.pem', '-out', 'server.csr', '-subj', `/CN=${opts.hosts[0]!.slice(0, 64)}`], work);
    // A random 128-bit serial, so certificates of one CA never share one and no serial file is left behind.
    openssl(['x509', '-req', '-in', 'server.csr', '-CA', caCert, '-CAkey', caKey, '-set_serial', `0x${randomBytes(16).toString('hex')}`,
      '-days', String(opts.days), '-extfile', 'server.ext', '-out', 'cert.pem'], work);
    // Checked as `roa serve --tls-cert/--tls-key` will read them.
    loadTlsCredentials({ certFile: join(work, 'cert.pem'), keyFile: join(work, 'key.pem') });
    const moves: [string, string][] = [['cert.pem', files.certFile], ['key.pem', files.keyFile]];
    if (caCreated) moves.unshift(['ca.key', files.caKeyFile], ['ca.crt', files.caFile]);
    for (const [name, to] of moves) {
      if (name.endsWith('.key') || name === 'key.pem') chmodSync(join(work, name), 0o600);
      renameSync(join(work, name), to);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { ...files, caCreated };
}

/** A path as the user would type it: relative to the working directory when inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') ? rel : path;
}

export function registerCert(program: Command): void {
  program
    .command('cert')
    .description('make a local CA and a certificate for HTTPS on this machine (runs openssl)')
    .option('--out <dir>', 'folder for ca.crt, ca.key, cert.pem and key.pem', DEFAULT_CERT_DIR)
    .option('--hosts <list>', 'comma-separated DNS names and IP addresses', DEFAULT_CERT_HOSTS.join(','))
    .option('--days <n>', `days the certificate is valid (at most ${MAX_DAYS})`, '397')
    .action((flags: { out: string; hosts: string; days: string }) => {
      const hosts = parseList(flags.hosts);
      const days = parseInteger(flags.days, '--days', 1, MAX_DAYS);
      const made = makeLocalCertificates({ out: flags.out, hosts, days });
      const [ca, cert, key] = [shown(made.caFile), shown(made.certFile), shown(made.keyFile)];
      console.log(`${made.caCreated ? 'made a new' : 'reused the'} CA ${ca} (keep ${shown(made.caKeyFile)} private; it can sign for any name)`);
      console.log(`made ${cert} and ${key} for ${hosts.join(', ')}, valid ${days} days`);
      console.log('');
      console.log('serve HTTPS and HTTP/2 with:');
      console.log(`  roa serve --tls-cert ${cert} --tls-key ${key}`);
      console.log('trust the CA in clients:');
      console.log(`  curl --cacert ${ca} https://localhost:8080/articles`);
      console.log(`  NODE_EXTRA_CA_CERTS=${ca} node client.js`);
      console.log(`  or system-wide (Debian/Ubuntu): sudo cp ${ca} /usr/local/share/ca-certificates/roa-local-ca.crt && sudo update-ca-certificates`);
    });
}
