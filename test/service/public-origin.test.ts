/**
 * @module test/service/public-origin
 * Issue 26 item 4: without `--issuer`, the OAuth metadata (issuer, endpoints, jwks_uri), JWT `iss`
 * and `aud`, and introspection's `iss` name the public origin of each request: the trusted forwarded
 * origin, or the one the client reached. A JWT is accepted at the origin it was issued at only.
 * With `--issuer`, that origin wins everywhere.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '../../src/auth/passwords.js';
import { generateClientSecret } from '../../src/auth/tokens.js';
import { createService, type Service, type ServiceOptions } from '../../src/service.js';
import { openStore } from '../../src/storage/open-store.js';
import type { Store } from '../../src/storage/store.js';
import { send as sendDirect, startTestService } from '../helpers/service.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls.js';
import { servePlainAndTls, type PlainAndTls } from './plain-and-tls.js';

const FORM = 'application/x-www-form-urlencoded';
const GATEWAY = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'localhost:8443' };

interface Metadata {
  issuer: string;
  token_endpoint: string;
  revocation_endpoint: string;
  introspection_endpoint: string;
  jwks_uri?: string;
}

interface Running {
  service: Service;
  store: Store;
  servers: PlainAndTls;
  client: string;
  close(): Promise<void>;
}

async function start(certs: TestCertificates, opts: ServiceOptions): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'roa-origin-'));
  const store = await openStore(':memory:');
  const service = await createService({ store, serverKey: randomBytes(32), logLevel: 'silent', env: 'development', tokenFormat: 'jwt', jwtKeyFile: join(dir, 'jwt.json'), ...opts });
  await store.createUser({ name: 'ed', role: 'editor', passwordHash: await hashPassword('ed-password-1') });
  const c = generateClientSecret();
  await store.createClient({ clientId: 'web', secretHash: c.secretHash, userName: 'ed', scopes: ['articles:read', 'articles:write'] });
  const servers = await servePlainAndTls(service.app, certs);
  return {
    service, store, servers,
    client: 'Basic ' + Buffer.from(`web:${c.clientSecret}`).toString('base64'),
    async close() {
      await servers.close();
      await service.release();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

describe('absolute URLs from the public origin (no --issuer)', () => {
  let certs: TestCertificates;
  let r: Running;
  before(async () => {
    certs = makeTestCertificates();
    r = await start(certs, {});
  });
  after(async () => {
    await r.close();
    certs.remove();
  });

  async function metadata(base: string, headers: Record<string, string> = {}): Promise<{ doc: Metadata; cacheControl: string }> {
    const res = await r.servers.send(base, 'GET', '/.well-known/oauth-authorization-server', { headers });
    assert.equal(res.status, 200, res.text);
    return { doc: JSON.parse(res.text) as Metadata, cacheControl: res.headers['cache-control']! };
  }

  async function token(base: string, headers: Record<string, string> = {}): Promise<string> {
    const res = await r.servers.send(base, 'POST', '/oauth/token', { headers: { ...headers, 'content-type': FORM, authorization: r.client }, body: 'grant_type=client_credentials' });
    assert.equal(res.status, 200, res.text);
    return (JSON.parse(res.text) as { access_token: string }).access_token;
  }

  it('names the origin the client reached directly, plain or TLS', async () => {
    for (const base of [r.servers.plain, r.servers.tls]) {
      const { doc, cacheControl } = await metadata(base);
      assert.deepEqual(doc.issuer, base);
      assert.equal(doc.token_endpoint, `${base}/oauth/token`);
      assert.equal(doc.revocation_endpoint, `${base}/oauth/revoke`);
      assert.equal(doc.introspection_endpoint, `${base}/oauth/introspect`);
      assert.equal(doc.jwks_uri, `${base}/oauth/jwks.json`);
      assert.equal(cacheControl, 'private, max-age=300', 'not for shared caches: another origin would see this one');
    }
  });

  it('names the origin a trusted proxy forwards (X-Forwarded-Proto/-Host, or Forwarded)', async () => {
    const viaX = (await metadata(r.servers.plain, GATEWAY)).doc;
    assert.equal(viaX.issuer, 'https://localhost:8443');
    assert.equal(viaX.token_endpoint, 'https://localhost:8443/oauth/token');
    assert.equal(viaX.jwks_uri, 'https://localhost:8443/oauth/jwks.json');
    const viaForwarded = (await metadata(r.servers.plain, { forwarded: 'for=198.51.100.7;proto=https;host="articles.example"' })).doc;
    assert.equal(viaForwarded.issuer, 'https://articles.example');
    assert.equal(viaForwarded.introspection_endpoint, 'https://articles.example/oauth/introspect');
  });

  it("puts the origin in a JWT's iss and aud, and in introspection's iss", async () => {
    const jwt = await token(r.servers.plain, GATEWAY);
    const c = claims(jwt);
    assert.equal(c.iss, 'https://localhost:8443');
    assert.equal(c.aud, 'https://localhost:8443');
    const intro = await r.servers.send(r.servers.plain, 'POST', '/oauth/introspect', { headers: { ...GATEWAY, 'content-type': FORM, authorization: r.client }, body: `token=${jwt}` });
    assert.equal((JSON.parse(intro.text) as { iss: string }).iss, 'https://localhost:8443');
    assert.equal(claims(await token(r.servers.tls)).iss, r.servers.tls);
  });

  it('accepts a JWT at the origin it was issued at, and refuses it at another', async () => {
    const jwt = await token(r.servers.plain, GATEWAY);
    const write = (base: string, headers: Record<string, string>) => r.servers.send(base, 'PUT', '/articles/origin', {
      headers: { ...headers, authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Origin', price: { amount: '1.00', currency: 'eur' } }),
    });
    const there = await write(r.servers.plain, GATEWAY);
    assert.equal(there.status, 201, there.text);
    const direct = await write(r.servers.plain, {});
    assert.equal(direct.status, 401, 'issued for https://localhost:8443, used at the plain port');
    const tls = await write(r.servers.tls, {});
    assert.equal(tls.status, 401, 'used at the TLS port');
    const again = await write(r.servers.plain, GATEWAY);
    assert.equal(again.status, 200, 'still good where it was issued, after being refused elsewhere');
  });
});

describe('absolute URLs from an untrusted peer (trust proxy none)', () => {
  let certs: TestCertificates;
  let r: Running;
  before(async () => {
    certs = makeTestCertificates();
    r = await start(certs, { trustProxy: ['none'] });
  });
  after(async () => {
    await r.close();
    certs.remove();
  });

  it('ignores forwarded headers: the metadata names the origin reached', async () => {
    for (const headers of [GATEWAY, { forwarded: 'proto=https;host=evil.example' }]) {
      const res = await r.servers.send(r.servers.plain, 'GET', '/.well-known/oauth-authorization-server', { headers });
      assert.equal((JSON.parse(res.text) as Metadata).issuer, r.servers.plain);
    }
  });
});

describe('--issuer wins', () => {
  let certs: TestCertificates;
  let r: Running;
  before(async () => {
    certs = makeTestCertificates();
    r = await start(certs, { issuer: 'https://articles.example' });
  });
  after(async () => {
    await r.close();
    certs.remove();
  });

  it('in the metadata, the JWT and its check, whatever origin the request came through', async () => {
    for (const [base, headers] of [[r.servers.plain, {}], [r.servers.plain, GATEWAY], [r.servers.tls, {}]] as const) {
      const res = await r.servers.send(base, 'GET', '/.well-known/oauth-authorization-server', { headers });
      const doc = JSON.parse(res.text) as Metadata;
      assert.equal(doc.issuer, 'https://articles.example');
      assert.equal(doc.token_endpoint, 'https://articles.example/oauth/token');
      assert.equal(res.headers['cache-control'], 'max-age=300');
    }
    const res = await r.servers.send(r.servers.plain, 'POST', '/oauth/token', { headers: { ...GATEWAY, 'content-type': FORM, authorization: r.client }, body: 'grant_type=client_credentials' });
    const jwt = (JSON.parse(res.text) as { access_token: string }).access_token;
    assert.equal(claims(jwt).iss, 'https://articles.example');
    for (const [base, headers] of [[r.servers.plain, {}], [r.servers.tls, {}], [r.servers.plain, GATEWAY]] as const) {
      const put = await r.servers.send(base, 'PUT', '/articles/fixed', {
        headers: { ...headers, authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Fixed', price: { amount: '1.00', currency: 'eur' } }),
      });
      assert.ok(put.status === 201 || put.status === 200, `${base}: ${put.status} ${put.text}`);
    }
  });
});

describe('through the embedded gateway', () => {
  it('the metadata names the gateway when fetched through it and the service when fetched directly', async () => {
    const svc = await startTestService({ gatewayPort: 'ephemeral' });
    try {
      for (let round = 0; round < 2; round++) {
        const via = JSON.parse((await sendDirect(svc.gatewayBase!, 'GET', '/.well-known/oauth-authorization-server')).text) as Metadata;
        assert.equal(via.issuer, svc.gatewayBase, `round ${round}: through the gateway`);
        const direct = JSON.parse((await sendDirect(svc.base, 'GET', '/.well-known/oauth-authorization-server')).text) as Metadata;
        assert.equal(direct.issuer, svc.base, `round ${round}: directly`);
      }
    } finally {
      await svc.close();
    }
  });
});
