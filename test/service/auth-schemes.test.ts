import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import { openHmacSecret, sealHmacSecret, SecretBox } from '../../src/auth/secret-box.js';
import { generateClientSecret } from '../../src/auth/tokens.js';
import { signRequest } from '../../src/client/index.js';
import { randomBytes } from 'node:crypto';
import { send, startTestService, type TestService } from '../helpers/service.js';

const XML = '<article><title>Signed</title><price currency="eur">1.00</price></article>';

describe('article service with HMAC, Bearer and OAuth wired in', () => {
  let svc: TestService;
  const key = randomBytes(32);
  const hmacSecret = 'a-very-long-hmac-secret-for-tests';
  let readOnly: { id: string; secret: string };
  let writer: { id: string; secret: string };
  before(async () => {
    svc = await startTestService({ serverKey: key });
    await svc.addUser('hank', 'editor');
    await svc.running.store.setUserHmacSecret('hank', sealHmacSecret(new SecretBox(key), 'hank', hmacSecret));
    assert.equal(openHmacSecret(new SecretBox(key), 'hank', (await svc.running.store.getUser('hank'))!.hmacSecret!), hmacSecret);
    const w = generateClientSecret();
    await svc.running.store.createClient({ clientId: 'writer-app', secretHash: w.secretHash, userName: 'hank', scopes: ['articles:read', 'articles:write'] });
    writer = { id: 'writer-app', secret: w.clientSecret };
    const r = generateClientSecret();
    await svc.running.store.createClient({ clientId: 'reader-app', secretHash: r.secretHash, userName: 'hank', scopes: ['articles:read'] });
    readOnly = { id: 'reader-app', secret: r.clientSecret };
  });
  after(() => svc.close());

  async function token(client: { id: string; secret: string }): Promise<string> {
    const res = await send(svc.base, 'POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from(`${client.id}:${client.secret}`).toString('base64') },
      body: 'grant_type=client_credentials',
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['cache-control'], 'no-store');
    return JSON.parse(res.text).access_token as string;
  }

  it('lists every enabled scheme in WWW-Authenticate', async () => {
    const res = await send(svc.base, 'POST', '/articles', { headers: { 'content-type': 'application/xml' }, body: XML });
    assert.equal(res.status, 401);
    const challenge = res.headers['www-authenticate']!;
    assert.match(challenge, /Basic realm="roa"/);
    assert.match(challenge, /hmac/i);
    assert.match(challenge, /Bearer/);
  });

  it('accepts a replay-protected HMAC signature on a write, and refuses its replay', async () => {
    const headers = signRequest({ method: 'PUT', target: '/articles/signed', body: XML, user: 'hank', secret: hmacSecret });
    const first = await send(svc.base, 'PUT', '/articles/signed', { headers: { ...headers, 'content-type': 'application/xml' }, body: XML });
    assert.equal(first.status, 201, first.text);
    const replay = await send(svc.base, 'PUT', '/articles/signed', { headers: { ...headers, 'content-type': 'application/xml' }, body: XML });
    assert.equal(replay.status, 401);
  });

  it('holds a signed body with Content-Digest to the 100 KiB body limit (413), like any other', async () => {
    const big = `<article><title>${'x'.repeat(150 * 1024)}</title><price currency="EUR">1.00</price></article>`;
    const headers = signRequest({ method: 'PUT', target: '/articles/too-big', body: big, user: 'hank', secret: hmacSecret });
    assert.ok(headers['Content-Digest'], 'signRequest adds Content-Digest for a body');
    const res = await send(svc.base, 'PUT', '/articles/too-big', { headers: { ...headers, 'content-type': 'application/xml' }, body: big });
    assert.equal(res.status, 413, res.text);
    assert.match(res.headers['content-type']!, /problem\+json/);
  });

  it('refuses a request carrying both a bearer token and an hmac signature (400), without spending the nonce', async () => {
    const headers = signRequest({ method: 'GET', target: '/articles', user: 'hank', secret: hmacSecret });
    const bearer = await token(readOnly);
    const both = await send(svc.base, 'GET', '/articles', { headers: { ...headers, authorization: `Bearer ${bearer}` } });
    assert.equal(both.status, 400, both.text);
    assert.match(both.headers['content-type']!, /problem\+json/);
    const alone = await send(svc.base, 'GET', '/articles', { headers: { ...headers } });
    assert.equal(alone.status, 200, alone.text);
  });

  it('refuses a signature made for another target', async () => {
    const headers = signRequest({ method: 'DELETE', target: '/articles/other', user: 'hank', secret: hmacSecret });
    const res = await send(svc.base, 'DELETE', '/articles/signed', { headers: { ...headers } });
    assert.equal(res.status, 401);
  });

  it('shows the longer Allow to an HMAC-authenticated OPTIONS', async () => {
    const headers = signRequest({ method: 'OPTIONS', target: '/articles', user: 'hank', secret: hmacSecret });
    const res = await send(svc.base, 'OPTIONS', '/articles', { headers: { ...headers } });
    assert.equal(res.headers.allow, 'HEAD, GET, OPTIONS, POST');
  });

  it('lets a bearer token with articles:write create an article', async () => {
    const bearer = await token(writer);
    const res = await send(svc.base, 'POST', '/articles', { headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/xml' }, body: XML });
    assert.equal(res.status, 201);
  });

  it('answers token-endpoint refusals as RFC 6749 JSON with no-store, and other methods with 405', async () => {
    const basic = 'Basic ' + Buffer.from(`${writer.id}:${writer.secret}`).toString('base64');
    const refusals: Array<[string, Record<string, string>, string, string]> = [
      ['a charset other than UTF-8', { 'content-type': 'application/x-www-form-urlencoded; charset=latin1' }, 'grant_type=client_credentials', 'invalid_request'],
      ['a compressed body', { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' }, 'grant_type=client_credentials', 'invalid_request'],
      ['a body over the form limit', { 'content-type': 'application/x-www-form-urlencoded' }, `grant_type=client_credentials&pad=${'x'.repeat(120 * 1024)}`, 'invalid_request'],
      ['an empty scope', { 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials&scope=', 'invalid_scope'],
    ];
    for (const [what, headers, body, error] of refusals) {
      const res = await send(svc.base, 'POST', '/oauth/token', { headers: { ...headers, authorization: basic }, body });
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', what);
      assert.equal(res.headers['cache-control'], 'no-store', what);
      assert.equal((JSON.parse(res.text) as { error: string }).error, error, what);
    }
    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect']) {
      const res = await send(svc.base, 'GET', path);
      assert.equal(res.status, 405, path);
      assert.equal(res.headers.allow, 'POST, OPTIONS', path);
    }
    const meta = await send(svc.base, 'POST', '/.well-known/oauth-authorization-server', { headers: { 'content-type': 'text/plain' }, body: 'x' });
    assert.equal(meta.status, 405);
    assert.equal(meta.headers.allow, 'GET, HEAD, OPTIONS');
  });

  it('throttles guessed Basic passwords per user, together with the password grant (429 + Retry-After)', async () => {
    const good = await svc.addUser('gus', 'editor', 'gus-password-1');
    const bad = 'Basic ' + Buffer.from('gus:guess').toString('base64');
    for (let n = 0; n < 10; n++) assert.equal((await send(svc.base, 'GET', '/articles', { headers: { authorization: bad } })).status, 401);
    const throttled = await send(svc.base, 'GET', '/articles', { headers: { authorization: good } });
    assert.equal(throttled.status, 429, throttled.text);
    assert.ok(Number(throttled.headers['retry-after']) > 0);
    assert.match(throttled.headers['content-type']!, /problem\+json/);
    const grant = await send(svc.base, 'POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from(`${writer.id}:${writer.secret}`).toString('base64') },
      body: 'grant_type=password&username=gus&password=gus-password-1',
    });
    assert.equal(grant.status, 429, grant.text);
  });

  it("refuses a reader's write for the role, not the scope, when the token carries articles:write", async () => {
    await svc.addUser('rita', 'reader');
    const c = generateClientSecret();
    await svc.running.store.createClient({ clientId: 'rita-app', secretHash: c.secretHash, userName: 'rita', scopes: ['articles:read', 'articles:write'] });
    const bearer = await token({ id: 'rita-app', secret: c.clientSecret });
    const res = await send(svc.base, 'POST', '/articles', { headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/xml' }, body: XML });
    assert.equal(res.status, 403);
    assert.equal(res.headers['www-authenticate'], undefined, 'a new token would not help: no insufficient_scope challenge');
    assert.equal(JSON.parse(res.text).code, 'ROA_ERR_FORBIDDEN');
  });

  it('refuses a write with a read-only token: 403 insufficient_scope', async () => {
    const bearer = await token(readOnly);
    const res = await send(svc.base, 'POST', '/articles', { headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/xml' }, body: XML });
    assert.equal(res.status, 403);
    assert.match(res.headers['www-authenticate']!, /Bearer.*error="insufficient_scope"/);
    const opts = await send(svc.base, 'OPTIONS', '/articles', { headers: { authorization: `Bearer ${bearer}` } });
    assert.equal(opts.headers.allow, 'HEAD, GET, OPTIONS');
  });

  it('answers a bad bearer token with 401 invalid_token', async () => {
    const res = await send(svc.base, 'GET', '/articles', { headers: { authorization: 'Bearer not-a-real-token' } });
    assert.equal(res.status, 401);
    assert.match(res.headers['www-authenticate']!, /Bearer.*error="invalid_token"/);
  });

  it('publishes authorization server metadata whose issuer is the service origin', async () => {
    const res = await send(svc.base, 'GET', '/.well-known/oauth-authorization-server');
    assert.equal(res.status, 200);
    const meta = JSON.parse(res.text);
    assert.equal(meta.issuer, svc.base);
    assert.equal(meta.token_endpoint, `${svc.base}/oauth/token`);
  });
});
