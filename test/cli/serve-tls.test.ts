/**
 * @module test/cli/serve-tls
 * `roa serve` and `roa gateway` with --tls-cert/--tls-key: HTTPS and HTTP/2 on one port (ALPN),
 * certificates from a throwaway CA checked by verifying clients, reload on SIGHUP, and one-line
 * start-up errors for a bad pair.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { after, before, describe, it } from '../helpers/node-test.js';
import { roa, roaRunning, stop } from '../helpers/roa-cli.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls.js';

/** A long-running roa, with 20 s to start (TLS set-up included). */
function startRoa(args: string[], ready: RegExp, env: Record<string, string> = {}) {
  return roaRunning(args, ready, env, 20_000);
}

/** A port nothing listens on a moment ago (the CLI's gateway port cannot be 0: 0 turns it off). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  alpn: string | false | null;
}

/** One HTTP/1.1 request over TLS, verifying the server against `ca`; ALPN offers only http/1.1. */
function getHttps(url: string, ca: Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, headers, agent: false, ALPNProtocols: ['http/1.1'] }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, alpn: (res.socket as unknown as { alpnProtocol: string | false }).alpnProtocol }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One GET over an HTTP/2 session. */
function getH2(session: ClientHttp2Session, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, ...headers });
    let status = 0;
    let head: Record<string, string | string[] | undefined> = {};
    let body = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => {
      status = Number(h[':status']);
      head = h as typeof head;
    });
    stream.on('data', (c: string) => (body += c));
    stream.on('end', () => resolve({ status, headers: head, body, alpn: session.alpnProtocol ?? null }));
    stream.on('error', reject);
    stream.end();
  });
}

function openH2(origin: string, ca: Buffer): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(origin, { ca });
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

/** The certificate a fresh TLS connection is shown. */
function peerCertificate(port: number, ca: Buffer): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', servername: 'localhost', port, ca }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      resolve(cert);
    });
    socket.on('error', reject);
  });
}

describe('roa serve / roa gateway over TLS', () => {
  let certs: TestCertificates;
  let dir: string;
  before(() => {
    certs = makeTestCertificates();
    dir = mkdtempSync(join(tmpdir(), 'roa-serve-tls-'));
  });
  after(() => {
    certs.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the service port over HTTPS and HTTP/2 (ALPN) when the gateway is off, TLS 1.2 at least', async () => {
    const { child, match } = await startRoa(
      ['serve', '--port', '0', '--gateway-port', '0', '--db', ':memory:', '--log-level', 'silent', '--tls-cert', certs.certFile, '--tls-key', certs.keyFile],
      /service on https:\/\/127\.0\.0\.1:(\d+)/,
    );
    try {
      const origin = `https://localhost:${match[1]}`;
      const h1 = await getHttps(`${origin}/articles`, certs.ca);
      assert.equal(h1.status, 200);
      assert.equal(h1.alpn, 'http/1.1');
      const session = await openH2(origin, certs.ca);
      try {
        const h2 = await getH2(session, '/articles');
        assert.equal(h2.status, 200);
        assert.equal(h2.alpn, 'h2');
        assert.equal(h2.body, h1.body);
      } finally {
        session.close();
      }
      await assert.rejects(
        new Promise((resolve, reject) => {
          const s = tlsConnect({ host: '127.0.0.1', port: Number(match[1]), ca: certs.ca, servername: 'localhost', maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }, () => resolve(s));
          s.on('error', reject);
        }),
        'a TLS 1.1 client is refused',
      );
    } finally {
      await stop(child);
    }
  });

  it('serves the gateway port over HTTPS and HTTP/2 when the gateway is on, from ROA_TLS_CERT and ROA_TLS_KEY, and names that origin in the OAuth metadata', async () => {
    const gatewayPort = await freePort();
    const { child, match } = await startRoa(
      ['serve', '--port', '0', '--gateway-port', String(gatewayPort), '--db', ':memory:', '--log-level', 'silent'],
      /caching gateway on https:\/\/127\.0\.0\.1:(\d+)/,
      { ROA_TLS_CERT: certs.certFile, ROA_TLS_KEY: certs.keyFile },
    );
    try {
      assert.equal(Number(match[1]), gatewayPort);
      const origin = `https://localhost:${gatewayPort}`;
      const session = await openH2(origin, certs.ca);
      try {
        const first = await getH2(session, '/articles');
        assert.equal(first.status, 200);
        assert.equal(first.alpn, 'h2');
        const meta = await getH2(session, '/.well-known/oauth-authorization-server');
        assert.equal(meta.status, 200);
        const doc = JSON.parse(meta.body) as { issuer: string; token_endpoint: string };
        assert.equal(doc.issuer, origin);
        assert.equal(doc.token_endpoint, `${origin}/oauth/token`);
      } finally {
        session.close();
      }
      const h1 = await getHttps(`${origin}/articles`, certs.ca);
      assert.equal(h1.status, 200);
      assert.equal(h1.alpn, 'http/1.1');
    } finally {
      await stop(child);
    }
  });

  it('reloads the certificate and key on SIGHUP without dropping an open connection', async () => {
    const certFile = join(dir, 'reload.crt');
    const keyFile = join(dir, 'reload.key');
    copyFileSync(certs.certFile, certFile);
    copyFileSync(certs.keyFile, keyFile);
    const { child, match } = await startRoa(
      ['serve', '--port', '0', '--gateway-port', '0', '--db', ':memory:', '--tls-cert', certFile, '--tls-key', keyFile],
      /service on https:\/\/127\.0\.0\.1:(\d+)/,
      { LOG_LEVEL: 'info' },
    );
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    try {
      const port = Number(match[1]);
      const before = await peerCertificate(port, certs.ca);
      const session = await openH2(`https://localhost:${port}`, certs.ca);
      try {
        assert.equal((await getH2(session, '/articles')).status, 200);
        const renewed = certs.issue('renewed');
        copyFileSync(renewed.certFile, certFile);
        copyFileSync(renewed.keyFile, keyFile);
        child.kill('SIGHUP');
        const deadline = Date.now() + 20_000;
        let after = before;
        while (after.serialNumber === before.serialNumber && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 100));
          after = await peerCertificate(port, certs.ca);
        }
        assert.notEqual(after.serialNumber, before.serialNumber, `a new connection gets the renewed certificate (log: ${output})`);
        assert.equal(child.exitCode, null, 'SIGHUP does not stop the service');
        // The session opened before the reload still works.
        assert.equal((await getH2(session, '/articles')).status, 200);
      } finally {
        session.close();
      }
      // A bad pair on the next SIGHUP is logged and the running certificate kept.
      copyFileSync(certs.otherKeyFile, keyFile);
      child.kill('SIGHUP');
      const deadline = Date.now() + 20_000;
      while (!/reload failed/.test(output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.match(output, /reload failed/);
      assert.equal((await getHttps(`https://localhost:${port}/articles`, certs.ca)).status, 200);
    } finally {
      await stop(child);
    }
  });

  it('exits 1 with one line for a missing, unreadable-as-PEM or mismatched certificate and key, or only one of the two', () => {
    const garbage = join(dir, 'garbage.pem');
    copyFileSync(join(process.cwd(), 'package.json'), garbage);
    const cases: [string[], RegExp][] = [
      [['--tls-cert', join(dir, 'missing.crt'), '--tls-key', certs.keyFile], /missing\.crt: no such file/],
      [['--tls-cert', garbage, '--tls-key', certs.keyFile], /not a PEM file/],
      [['--tls-cert', certs.certFile, '--tls-key', certs.otherKeyFile], /does not match/],
      [['--tls-cert', certs.certFile], /needs --tls-key/],
      [['--tls-key', certs.keyFile], /needs --tls-cert/],
    ];
    for (const [args, message] of cases) {
      for (const command of [['serve', '--port', '0', '--gateway-port', '0', '--db', ':memory:'], ['gateway', '--upstream', 'http://127.0.0.1:9', '--port', '0']]) {
        const r = roa([...command, ...args]);
        assert.equal(r.status, 1, `${command[0]} ${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, message);
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      }
    }
  });

  it('runs the standalone gateway over HTTPS and HTTP/2 (roa gateway --tls-cert --tls-key)', async () => {
    const origin = await startRoa(['serve', '--port', '0', '--gateway-port', '0', '--db', ':memory:', '--log-level', 'silent'], /service on http:\/\/127\.0\.0\.1:(\d+)/);
    try {
      const gw = await startRoa(
        ['gateway', '--upstream', `http://127.0.0.1:${origin.match[1]}`, '--port', '0', '--tls-cert', certs.certFile, '--tls-key', certs.keyFile],
        /gateway on https:\/\/127\.0\.0\.1:(\d+)/,
      );
      try {
        const base = `https://localhost:${gw.match[1]}`;
        const session = await openH2(base, certs.ca);
        try {
          const a = await getH2(session, '/articles');
          assert.equal(a.status, 200);
          assert.equal(a.alpn, 'h2');
        } finally {
          session.close();
        }
        const b = await getHttps(`${base}/articles`, certs.ca);
        assert.equal(b.status, 200);
        assert.equal(b.alpn, 'http/1.1');
      } finally {
        await stop(gw.child);
      }
    } finally {
      await stop(origin.child);
    }
  });
});
