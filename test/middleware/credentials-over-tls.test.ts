/**
 * @module test/middleware/credentials-over-tls
 * Issue 26 item 3: in production, credentials that did not arrive over TLS (directly or through a
 * trusted proxy that says so) are refused with a 403 problem before any handler runs, and the
 * refusal is logged at warn without the credential; secure answers carry Strict-Transport-Security.
 * Development and test pass everything through untouched.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { credentialsOverTls, type CredentialsOverTlsOptions } from '../../src/middleware/credentials-over-tls.js';
import { request, withServer, type SimpleResponse } from '../helpers/server.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls.js';

const SECRET = 'c2VjcmV0LXBhc3N3b3Jk-ZQXJ';
const basic = 'Basic ' + Buffer.from(`ann:${SECRET}`).toString('base64');

interface Harness {
  app: App;
  /** Paths whose handler ran. */
  reached: string[];
  /** Log lines written, as text. */
  logs: string[];
}

/** An app in `env` with the middleware first and a handler that reads the body on every path. */
function harness(env: string, options: Omit<CredentialsOverTlsOptions, 'logger'> = {}, trust?: string): Harness {
  const logs: string[] = [];
  const reached: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(line) });
  const app = createApp({ env });
  if (trust !== undefined) app.set('trust proxy', trust);
  app.use(credentialsOverTls({ logger, ...options }));
  app.all('*', (req: Request, res: Response) => {
    reached.push(req.path);
    req.resume();
    req.on('end', () => res.json({ ok: true }));
  });
  return { app, reached, logs };
}

function assertRefused(res: SimpleResponse, name: string): void {
  assert.equal(res.status, 403, `${name}: ${res.text}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, name);
  const problem = JSON.parse(res.text) as { code: string; detail: string; status: number; type: string };
  assert.equal(problem.code, 'ROA_ERR_TLS_REQUIRED', name);
  assert.equal(problem.status, 403);
  assert.match(problem.detail, /https/);
  assert.equal(problem.type, 'https://roa.dev/problems/tls-required');
  assert.equal(res.headers['strict-transport-security'], undefined, 'no HSTS over plain HTTP (RFC 6797 §7.2)');
}

const CREDENTIALED: Array<[string, string, string, Record<string, string>, string?]> = [
  ['Basic', 'GET', '/articles', { authorization: basic }, 'Authorization Basic'],
  ['Bearer', 'GET', '/articles', { authorization: `Bearer ${SECRET}` }, 'Authorization Bearer'],
  ['a bare secret in Authorization', 'GET', '/articles', { authorization: SECRET }, 'Authorization other'],
  ['HMAC', 'PUT', '/articles/x', { authentication: `hmac ann:nonce:${SECRET}`, date: new Date().toUTCString() }, 'Authentication (HMAC)'],
  ['token endpoint, client secret in the body', 'POST', '/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' }, 'OAuth client credentials or password'],
  ['token endpoint, other case and a trailing slash', 'POST', '/OAuth/Token/', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['revocation endpoint', 'POST', '/oauth/revoke', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['introspection endpoint', 'POST', '/oauth/introspect', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['OAuth 1.0a parameters in the query', 'GET', `/articles?oauth_consumer_key=app&oauth_token=t&oauth_signature_method=HMAC-SHA1&oauth_signature=${SECRET}`, {}, 'OAuth 1.0a parameters in the query'],
];
const FORM_BODY = `grant_type=password&client_id=web&client_secret=${SECRET}&username=ann&password=${SECRET}`;

describe('credentialsOverTls in production over plain HTTP', () => {
  it('refuses every kind of credential with a 403 problem before any handler runs', async () => {
    const h = harness('production');
    await withServer(h.app, async (base) => {
      for (const [name, method, path, headers] of CREDENTIALED) {
        const res = await request(base, method, path, { headers, body: method === 'POST' ? FORM_BODY : undefined });
        assertRefused(res, name);
      }
    });
    assert.deepEqual(h.reached, []);
  });

  it('logs each refusal at warn with method, path, client address and kind, never the credential', async () => {
    const h = harness('production');
    await withServer(h.app, async (base) => {
      for (const [, method, path, headers] of CREDENTIALED) {
        await request(base, method, `${path}?access_token=${SECRET}`, { headers, body: method === 'POST' ? FORM_BODY : undefined });
      }
    });
    assert.equal(h.logs.length, CREDENTIALED.length);
    for (const [i, [name, method, path, , kind]] of CREDENTIALED.entries()) {
      const line = JSON.parse(h.logs[i]!) as Record<string, unknown>;
      assert.equal(line.level, 40, `${name}: warn`);
      assert.equal(line.method, method);
      assert.equal(line.path, path.split('?')[0], 'the path without its query');
      assert.equal(line.ip, '127.0.0.1');
      if (kind !== undefined) assert.equal(line.credential, kind, name);
    }
    const all = h.logs.join('');
    assert.ok(!all.includes(SECRET), 'no credential in the log');
    assert.ok(!all.includes(basic.slice(6)), 'no encoded credential in the log');
  });

  it('refuses a large body at once, without reading it', async () => {
    const h = harness('production');
    await withServer(h.app, async (base) => {
      const res = await request(base, 'PUT', '/articles/big', { headers: { authorization: basic }, body: Buffer.alloc(256 * 1024, 'a') });
      assertRefused(res, 'big body');
    });
    assert.deepEqual(h.reached, []);
  });

  it('lets requests without credentials through, without HSTS', async () => {
    const h = harness('production');
    await withServer(h.app, async (base) => {
      for (const [method, path] of [['GET', '/articles'], ['GET', '/oauth/token'], ['POST', '/articles'], ['GET', '/.well-known/oauth-authorization-server']]) {
        const res = await request(base, method!, path!);
        assert.equal(res.status, 200, `${method} ${path}`);
        assert.equal(res.headers['strict-transport-security'], undefined);
      }
    });
  });

  it('believes X-Forwarded-Proto: https only from a trusted proxy', async () => {
    const trusted = harness('production', {}, 'loopback');
    await withServer(trusted.app, async (base) => {
      const res = await request(base, 'GET', '/articles', { headers: { authorization: basic, 'x-forwarded-proto': 'https' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['strict-transport-security'], 'max-age=31536000');
      const forwarded = await request(base, 'POST', '/oauth/token', { headers: { forwarded: 'for=198.51.100.7;proto=https' }, body: FORM_BODY });
      assert.equal(forwarded.status, 200, forwarded.text);
      assertRefused(await request(base, 'GET', '/articles', { headers: { authorization: basic, 'x-forwarded-proto': 'http' } }), 'trusted proxy says http');
    });
    for (const trust of ['10.0.0.1', undefined]) {
      const untrusted = harness('production', {}, trust);
      await withServer(untrusted.app, async (base) => {
        assertRefused(await request(base, 'GET', '/articles', { headers: { authorization: basic, 'x-forwarded-proto': 'https' } }), `forged from loopback, trust ${trust}`);
        assertRefused(await request(base, 'POST', '/oauth/token', { headers: { forwarded: 'proto=https' }, body: FORM_BODY }), `forged Forwarded, trust ${trust}`);
      });
      assert.deepEqual(untrusted.reached, []);
    }
  });
});

describe('credentialsOverTls options and other environments', () => {
  for (const env of ['development', 'test']) {
    it(`lets credentials over plain HTTP through in ${env}, and sends no HSTS`, async () => {
      const h = harness(env, {}, 'loopback');
      await withServer(h.app, async (base) => {
        for (const [name, method, path, headers] of CREDENTIALED) {
          const res = await request(base, method, path, { headers, body: method === 'POST' ? FORM_BODY : undefined });
          assert.equal(res.status, 200, name);
        }
        const secure = await request(base, 'GET', '/articles', { headers: { 'x-forwarded-proto': 'https' } });
        assert.equal(secure.headers['strict-transport-security'], undefined);
      });
      assert.equal(h.logs.length, 0);
    });
  }

  it('enforces where `production: true` says so, whatever the app env', async () => {
    const h = harness('development', { production: true });
    await withServer(h.app, async (base) => assertRefused(await request(base, 'GET', '/', { headers: { authorization: basic } }), 'forced'));
    const off = harness('production', { production: false });
    await withServer(off.app, async (base) => assert.equal((await request(base, 'GET', '/', { headers: { authorization: basic } })).status, 200));
  });

  it('takes the HSTS max-age and includeSubDomains, or sends none', async () => {
    const cases: Array<[CredentialsOverTlsOptions, string | undefined]> = [
      [{ hstsMaxAge: 600 }, 'max-age=600'],
      [{ hstsIncludeSubDomains: true }, 'max-age=31536000; includeSubDomains'],
      [{ hstsMaxAge: false }, undefined],
      [{ hstsMaxAge: 0 }, undefined],
    ];
    for (const [options, expected] of cases) {
      const h = harness('production', options, 'loopback');
      await withServer(h.app, async (base) => {
        const res = await request(base, 'GET', '/', { headers: { 'x-forwarded-proto': 'https' } });
        assert.equal(res.headers['strict-transport-security'], expected, JSON.stringify(options));
      });
    }
  });

  it('takes other credential paths', async () => {
    const h = harness('production', { credentialPaths: ['/login'] });
    await withServer(h.app, async (base) => {
      assertRefused(await request(base, 'POST', '/login', { body: 'password=x' }), '/login');
      assert.equal((await request(base, 'POST', '/oauth/token', { body: 'x=y' })).status, 200, 'no longer a credential path');
    });
  });

  it('refuses a bad max-age when it is made', () => {
    for (const bad of [-1, 1.5, Number.NaN]) assert.throws(() => credentialsOverTls({ hstsMaxAge: bad }), TypeError);
  });
});

describe('credentialsOverTls over real TLS', () => {
  let certs: TestCertificates;
  before(() => {
    certs = makeTestCertificates();
  });
  after(() => certs.remove());

  async function overTls(app: App, headers: Record<string, string>): Promise<SimpleResponse> {
    const server = https.createServer({ cert: certs.cert, key: certs.key }, app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      return await new Promise<SimpleResponse>((resolve, reject) => {
        const req = https.request({ host: 'localhost', port, path: '/articles', ca: certs.ca, headers, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        req.end();
      });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  it('accepts credentials and sends HSTS in production', async () => {
    const h = harness('production');
    const res = await overTls(h.app, { authorization: basic });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['strict-transport-security'], 'max-age=31536000');
    assert.deepEqual(h.reached, ['/articles']);
  });

  it('sends no HSTS in development', async () => {
    const res = await overTls(harness('development').app, { authorization: basic });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['strict-transport-security'], undefined);
  });
});
