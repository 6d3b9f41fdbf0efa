/** @module test/cli/cert — `roa cert`: a local CA and a server certificate that openssl and a verifying node client accept. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, get } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { after, describe } from '../helpers/node-test.js';
import { skipReason, suiteNeeding } from '../helpers/services.js';
import { opensslAvailable } from '../helpers/tls.js';

const CLI = join(process.cwd(), 'src', 'cli.ts');

/** `roa cert …` as a user runs it (from source, so it needs no build). */
function roaCert(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', CLI, 'cert', ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
}

function openssl(args: string[]) {
  return spawnSync('openssl', args, { encoding: 'utf8', timeout: 30_000 });
}

/**
 * Serves the produced pair over HTTPS on 127.0.0.1 and fetches `/` with only the produced CA trusted,
 * checking the certificate against `name` (node checks the SNI name, or the address without one).
 */
async function handshake(dir: string, name: 'localhost' | '127.0.0.1'): Promise<{ status: number; authorized: boolean }> {
  const server = createServer({ cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise((resolve, reject) => {
      const sni = name === 'localhost' ? { servername: name } : {};
      get({ host: '127.0.0.1', ...sni, port, path: '/', ca: readFileSync(join(dir, 'ca.crt')), agent: false }, (res) => {
        const authorized = (res.socket as TLSSocket).authorized;
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, authorized }));
      }).on('error', reject);
    });
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

const skip = skipReason(opensslAvailable(), 'openssl not installed');

describe('roa cert', () => {
  const { it } = suiteNeeding(skip);
  const root = mkdtempSync(join(tmpdir(), 'roa-cert-test-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('makes a CA and a localhost certificate that openssl verifies and a node client trusts, keys 0600, and prints how to use them', async () => {
    const dir = join(root, 'default');
    const run = roaCert(['--out', dir]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /made a new CA/);
    assert.ok(run.stdout.includes(`roa serve --tls-cert ${join(dir, 'cert.pem')} --tls-key ${join(dir, 'key.pem')}`), run.stdout);
    assert.ok(run.stdout.includes(`curl --cacert ${join(dir, 'ca.crt')}`), run.stdout);
    assert.ok(run.stdout.includes(`NODE_EXTRA_CA_CERTS=${join(dir, 'ca.crt')}`), run.stdout);

    assert.deepEqual(readdirSync(dir).sort(), ['ca.crt', 'ca.key', 'cert.pem', 'key.pem'], 'no work files left behind');
    for (const key of ['ca.key', 'key.pem']) assert.equal(statSync(join(dir, key)).mode & 0o777, 0o600, key);

    const verify = openssl(['verify', '-CAfile', join(dir, 'ca.crt'), join(dir, 'cert.pem')]);
    assert.equal(verify.status, 0, verify.stderr);
    assert.match(verify.stdout, /cert\.pem: OK/);

    const cert = new X509Certificate(readFileSync(join(dir, 'cert.pem')));
    assert.equal(cert.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    assert.equal(cert.ca, false);
    assert.ok(cert.checkIssued(new X509Certificate(readFileSync(join(dir, 'ca.crt')))));
    const days = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
    assert.ok(days > 396 && days <= 397, `valid ${days} days`);

    for (const host of ['localhost', '127.0.0.1'] as const) {
      assert.deepEqual(await handshake(dir, host), { status: 200, authorized: true }, host);
    }
  });

  it('reuses the CA on a second run and issues a new certificate under it', () => {
    const dir = join(root, 'again');
    assert.equal(roaCert(['--out', dir]).status, 0);
    const ca = readFileSync(join(dir, 'ca.crt'));
    const caKey = readFileSync(join(dir, 'ca.key'));
    const first = new X509Certificate(readFileSync(join(dir, 'cert.pem')));

    const run = roaCert(['--out', dir, '--hosts', 'roa.test,*.roa.test,10.1.2.3', '--days', '30']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /reused the CA/);
    assert.deepEqual(readFileSync(join(dir, 'ca.crt')), ca);
    assert.deepEqual(readFileSync(join(dir, 'ca.key')), caKey);
    const second = new X509Certificate(readFileSync(join(dir, 'cert.pem')));
    assert.notEqual(second.serialNumber, first.serialNumber);
    assert.equal(second.subjectAltName, 'DNS:roa.test, DNS:*.roa.test, IP Address:10.1.2.3');
    const days = (Date.parse(second.validTo) - Date.now()) / 86_400_000;
    assert.ok(days > 29 && days <= 30, `valid ${days} days`);
    assert.equal(openssl(['verify', '-CAfile', join(dir, 'ca.crt'), join(dir, 'cert.pem')]).status, 0);
  });

  it('refuses bad hosts and days with one line and exit 1, writing nothing', () => {
    const dir = join(root, 'refused');
    for (const args of [['--hosts', 'a b'], ['--hosts', 'x/../y'], ['--hosts', ','], ['--days', '0'], ['--days', '826'], ['--days', 'soon']]) {
      const run = roaCert(['--out', dir, ...args]);
      assert.equal(run.status, 1, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
      assert.match(run.stderr, /^roa: .*(--hosts|--days).*\n$/, args.join(' '));
    }
    assert.equal(existsSync(join(dir, 'ca.crt')), false);
  });

  it('says so in one line when openssl is not on PATH', () => {
    const run = roaCert(['--out', join(root, 'no-openssl')], { PATH: join(root, 'empty-path') });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^roa: openssl not found on PATH.*\n$/);
  });

  it("README's openssl recipe makes files a verifying client accepts, as roa cert's do", async (t) => {
    if (spawnSync('bash', ['--version'], { stdio: 'ignore' }).status !== 0) return t.skip('no bash');
    const recipe = [...readFileSync('README.md', 'utf8').matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => b.includes('openssl x509 -req'));
    assert.equal(recipe.length, 1, 'one sh block in README.md holds the openssl recipe');
    const cwd = join(root, 'recipe');
    mkdirSync(cwd);
    const run = spawnSync('bash', ['-e', '-c', recipe[0]!], { cwd, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    const dir = join(cwd, 'data', 'tls');
    assert.deepEqual(readdirSync(dir).sort(), ['ca.crt', 'ca.key', 'cert.pem', 'key.pem']);
    for (const key of ['ca.key', 'key.pem']) assert.equal(statSync(join(dir, key)).mode & 0o777, 0o600, key);
    assert.equal(openssl(['verify', '-CAfile', join(dir, 'ca.crt'), join(dir, 'cert.pem')]).status, 0);
    for (const host of ['localhost', '127.0.0.1'] as const) {
      assert.deepEqual(await handshake(dir, host), { status: 200, authorized: true }, host);
    }
  });

  it('refuses a CA certificate without its key rather than making another CA beside it', () => {
    const dir = join(root, 'half');
    assert.equal(roaCert(['--out', dir]).status, 0);
    rmSync(join(dir, 'ca.key'));
    const run = roaCert(['--out', dir]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^roa: .*ca\.key is missing.*\n$/);
  });

  it('refuses to reuse an existing file that is not a CA', () => {
    const dir = join(root, 'not-ca');
    assert.equal(roaCert(['--out', dir]).status, 0);
    writeFileSync(join(dir, 'ca.crt'), readFileSync(join(dir, 'cert.pem')));
    const run = roaCert(['--out', dir]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^roa: .*not a CA certificate.*\n$/);
  });
});
