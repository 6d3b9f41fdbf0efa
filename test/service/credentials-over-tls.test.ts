/**
 * @module test/service/credentials-over-tls
 * Issue 26 item 3 on the article service (`createService`): in production, Basic, HMAC, Bearer and
 * the token endpoint's client secret and password are refused over plain HTTP with a 403 problem,
 * and nothing is done: the store is not even asked (no user, client or token read, nothing written).
 * The same requests succeed over TLS, or through a trusted proxy that says https. Development keeps
 * plain HTTP working.
 */
import { after, before, describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { hashPassword } from '../../src/auth/passwords.js';
import { SecretBox, sealHmacSecret } from '../../src/auth/secret-box.js';
import { generateClientSecret } from '../../src/auth/tokens.js';
import { signRequest } from '../../src/client/index.js';
import { createService, type Service, type ServiceOptions } from '../../src/service.js';
import { openStore } from '../../src/storage/open-store.js';
import type { Store } from '../../src/storage/store.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls.js';
import { servePlainAndTls, type PlainAndTls, type Reply } from './plain-and-tls.js';

const PASSWORD = 'ed-password-ZQXJ-1';
const BASIC = 'Basic ' + Buffer.from(`ed:${PASSWORD}`).toString('base64');
const JSON_TYPE = 'application/json';
const FORM = 'application/x-www-form-urlencoded';
const article = (title: string) => JSON.stringify({ title, price: { amount: '1.00', currency: 'eur' } });

/** The store with every call after `watch()` recorded by method name. */
function watched(store: Store): { store: Store; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

interface Running {
  service: Service;
  servers: PlainAndTls;
  calls: string[];
  logs: string[];
  client: { id: string; secret: string };
  hmacSecret: string;
  close(): Promise<void>;
}

async function start(certs: TestCertificates, opts: ServiceOptions): Promise<Running> {
  const real = await openStore(':memory:');
  const serverKey = randomBytes(32);
  const logs: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(line) });
  const { store, calls } = watched(real);
  const service = await createService({ store, serverKey, logger, ...opts });
  await real.createUser({ name: 'ed', role: 'editor', passwordHash: await hashPassword(PASSWORD) });
  const hmacSecret = 'an-hmac-secret-that-is-long-enough-ZQXJ';
  await real.setUserHmacSecret('ed', sealHmacSecret(new SecretBox(serverKey), 'ed', hmacSecret));
  const c = generateClientSecret();
  await real.createClient({ clientId: 'web', secretHash: c.secretHash, userName: 'ed', scopes: ['articles:read', 'articles:write'] });
  const servers = await servePlainAndTls(service.app, certs);
  return {
    service, servers, calls, logs, hmacSecret, client: { id: 'web', secret: c.clientSecret },
    async close() {
      await servers.close();
      await service.release();
      await real.close();
    },
  };
}

function assertRefused(res: Reply, name: string): void {
  assert.equal(res.status, 403, `${name}: ${res.text}`);
  const problem = JSON.parse(res.text) as { code: string; detail: string };
  assert.equal(problem.code, 'ROA_ERR_TLS_REQUIRED', name);
  assert.match(problem.detail, /https/, name);
}

describe('the article service in production: credentials only over TLS', () => {
  let certs: TestCertificates;
  let r: Running;
  before(async () => {
    certs = makeTestCertificates();
    r = await start(certs, { env: 'production', passwordGrant: true, passwordGrantClients: ['web'] });
  });
  after(async () => {
    await r.close();
    certs.remove();
  });

  const passwordGrant = () => `grant_type=password&username=ed&password=${PASSWORD}&client_id=web&client_secret=${r.client.secret}`;

  it('refuses Basic, HMAC, Bearer and the token endpoint over plain HTTP, asking the store nothing', async () => {
    const { plain, send } = r.servers;
    r.calls.length = 0;
    const signed = signRequest({ method: 'PUT', target: '/articles/signed', body: article('Signed'), user: 'ed', secret: r.hmacSecret });
    const attempts: Array<[string, Promise<Reply>]> = [
      ['Basic PUT', send(plain, 'PUT', '/articles/plain', { headers: { authorization: BASIC, 'content-type': JSON_TYPE }, body: article('Plain') })],
      ['HMAC PUT', send(plain, 'PUT', '/articles/signed', { headers: { ...signed, 'content-type': JSON_TYPE } as Record<string, string>, body: article('Signed') })],
      ['Bearer GET', send(plain, 'GET', '/articles', { headers: { authorization: 'Bearer some-token-ZQXJ' } })],
      ['password grant', send(plain, 'POST', '/oauth/token', { headers: { 'content-type': FORM }, body: passwordGrant() })],
      ['client credentials in Basic', send(plain, 'POST', '/oauth/token', {
        headers: { 'content-type': FORM, authorization: 'Basic ' + Buffer.from(`web:${r.client.secret}`).toString('base64') }, body: 'grant_type=client_credentials',
      })],
      ['revocation', send(plain, 'POST', '/oauth/revoke', { headers: { 'content-type': FORM }, body: `token=x&client_id=web&client_secret=${r.client.secret}` })],
      ['introspection', send(plain, 'POST', '/oauth/introspect', { headers: { 'content-type': FORM }, body: `token=x&client_id=web&client_secret=${r.client.secret}` })],
    ];
    for (const [name, attempt] of attempts) {
      const res = await attempt;
      assertRefused(res, name);
      assert.ok(!res.text.includes('access_token'), `${name}: no token`);
    }
    assert.deepEqual(r.calls, [], 'the store was not asked anything');
    // Nothing was written: the articles are not there.
    for (const path of ['/articles/plain', '/articles/signed']) assert.equal((await send(plain, 'GET', path)).status, 404, path);
  });

  it('logs each refusal at warn without the credential', async () => {
    r.logs.length = 0;
    const { plain, send } = r.servers;
    await send(plain, 'PUT', '/articles/plain', { headers: { authorization: BASIC, 'content-type': JSON_TYPE }, body: article('Plain') });
    await send(plain, 'POST', '/oauth/token', { headers: { 'content-type': FORM }, body: passwordGrant() });
    const warnings = r.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 40);
    assert.deepEqual(warnings.map((w) => [w.method, w.path, w.ip, w.credential]), [
      ['PUT', '/articles/plain', '127.0.0.1', 'Authorization Basic'],
      ['POST', '/oauth/token', '127.0.0.1', 'OAuth client credentials or password'],
    ]);
    const all = r.logs.join('\n');
    for (const secret of [PASSWORD, r.client.secret, BASIC.slice(6)]) assert.ok(!all.includes(secret), 'a credential reached the log');
  });

  it('accepts the same over TLS, with Strict-Transport-Security', async () => {
    const { tls, send } = r.servers;
    r.calls.length = 0;
    const put = await send(tls, 'PUT', '/articles/over-tls', { headers: { authorization: BASIC, 'content-type': JSON_TYPE }, body: article('Over TLS') });
    assert.equal(put.status, 201, put.text);
    assert.ok(r.calls.length > 0, 'the watched store sees what the service does');
    assert.equal(put.headers['strict-transport-security'], 'max-age=31536000');
    const grant = await send(tls, 'POST', '/oauth/token', { headers: { 'content-type': FORM }, body: passwordGrant() });
    assert.equal(grant.status, 200, grant.text);
    const token = (JSON.parse(grant.text) as { access_token: string }).access_token;
    const del = await send(tls, 'DELETE', '/articles/over-tls', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(del.status, 204, del.text);
    const signed = signRequest({ method: 'PUT', target: '/articles/signed-tls', body: article('Signed'), user: 'ed', secret: r.hmacSecret });
    const hmac = await send(tls, 'PUT', '/articles/signed-tls', { headers: { ...signed, 'content-type': JSON_TYPE } as Record<string, string>, body: article('Signed') });
    assert.equal(hmac.status, 201, hmac.text);
    const anonymous = await send(tls, 'GET', '/articles');
    assert.equal(anonymous.headers['strict-transport-security'], 'max-age=31536000', 'every secure answer');
  });

  it('accepts them over plain HTTP from a trusted proxy (loopback, the default) that says https', async () => {
    const { plain, send } = r.servers;
    const put = await send(plain, 'PUT', '/articles/via-proxy', { headers: { authorization: BASIC, 'content-type': JSON_TYPE, 'x-forwarded-proto': 'https' }, body: article('Via proxy') });
    assert.equal(put.status, 201, put.text);
    assert.equal(put.headers['strict-transport-security'], 'max-age=31536000');
    const grant = await send(plain, 'POST', '/oauth/token', { headers: { 'content-type': FORM, forwarded: 'for=198.51.100.7;proto=https' }, body: passwordGrant() });
    assert.equal(grant.status, 200, grant.text);
  });
});

describe('the article service in production trusting no proxy', () => {
  let certs: TestCertificates;
  let r: Running;
  before(async () => {
    certs = makeTestCertificates();
    r = await start(certs, { env: 'production', trustProxy: ['none'], passwordGrant: true, passwordGrantClients: ['web'] });
  });
  after(async () => {
    await r.close();
    certs.remove();
  });

  it('refuses credentials with a forged X-Forwarded-Proto or Forwarded from loopback', async () => {
    const { plain, send } = r.servers;
    r.calls.length = 0;
    assertRefused(await send(plain, 'PUT', '/articles/forged', { headers: { authorization: BASIC, 'content-type': JSON_TYPE, 'x-forwarded-proto': 'https' }, body: article('F') }), 'X-Forwarded-Proto');
    assertRefused(await send(plain, 'GET', '/articles', { headers: { authorization: BASIC, forwarded: 'proto=https' } }), 'Forwarded');
    assert.deepEqual(r.calls, []);
  });
});

describe('the article service in development', () => {
  let certs: TestCertificates;
  let r: Running;
  before(async () => {
    certs = makeTestCertificates();
    r = await start(certs, { env: 'development' });
  });
  after(async () => {
    await r.close();
    certs.remove();
  });

  it('accepts credentials over plain HTTP and sends no HSTS, even over TLS', async () => {
    const { plain, tls, send } = r.servers;
    const put = await send(plain, 'PUT', '/articles/dev', { headers: { authorization: BASIC, 'content-type': JSON_TYPE }, body: article('Dev') });
    assert.equal(put.status, 201, put.text);
    assert.equal(put.headers['strict-transport-security'], undefined);
    const grant = await send(plain, 'POST', '/oauth/token', { headers: { 'content-type': FORM }, body: `grant_type=password&username=ed&password=${PASSWORD}&client_id=web&client_secret=${r.client.secret}` });
    assert.equal(grant.status, 200, grant.text);
    const secure = await send(tls, 'GET', '/articles/dev');
    assert.equal(secure.status, 200);
    assert.equal(secure.headers['strict-transport-security'], undefined);
  });
});
