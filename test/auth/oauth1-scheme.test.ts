/** @module test/auth/oauth1-scheme — OAuth1Scheme: callers, replay and clock checks, TLS-only PLAINTEXT, body hash, and hostile input. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from '../helpers/node-test.js';
import { StoreNonceStore } from '../../src/auth/store-nonce-store.js';
import { DEFAULT_OAUTH1_LIMITS } from '../../src/auth/oauth1/limits.js';
import { MemoryAuthStore } from './memory-store.js';
import { authorizationOf, formOf, send, signParams, startHarness, type Harness, type SignOptions } from './oauth1-harness.js';

const KEY = 'client-one';
const SECRET = 'c0nsumer secret&more';
const TOKEN = 'access-token-1';
const TOKEN_SECRET = 't0ken/secret';

let nonceCounter = 0;

async function setup(h: Harness): Promise<void> {
  await h.users.createUser({ name: 'ann', role: 'editor', passwordHash: 'x' });
  await h.users.createUser({ name: 'robot', role: 'reader', passwordHash: 'x' });
  h.credentials.consumers.set(KEY, { key: KEY, secret: SECRET, rsaPublicKey: undefined, callbacks: [] });
  h.credentials.consumers.set('two-legged', { key: 'two-legged', secret: 'tl', rsaPublicKey: undefined, callbacks: [], userName: 'robot' });
  h.credentials.consumers.set('other', { key: 'other', secret: 'o', rsaPublicKey: undefined, callbacks: [] });
  h.credentials.accessTokens.set(TOKEN, { secret: TOKEN_SECRET, consumerKey: KEY, userName: 'ann' });
  h.credentials.accessTokens.set('scoped', { secret: 's', consumerKey: KEY, userName: 'ann', scopes: ['articles:read'] });
}

/** A signed request's protocol parameters for `path` on the harness (Host 127.0.0.1:port). */
function sign(h: Harness, method: string, path: string, o: Partial<SignOptions> = {}) {
  return signParams({
    method,
    url: `http://127.0.0.1:${h.port}${path}`,
    consumerKey: KEY,
    consumerSecret: SECRET,
    token: TOKEN,
    tokenSecret: TOKEN_SECRET,
    timestamp: Math.floor(h.clock.now / 1000),
    nonce: `n${++nonceCounter}`,
    ...o,
  });
}

const host = (h: Harness): string => `127.0.0.1:${h.port}`;

async function get(h: Harness, path: string, o: Partial<SignOptions> = {}, headers: Record<string, string> = {}) {
  return send(h, 'GET', path, { host: host(h), authorization: authorizationOf(sign(h, 'GET', path, o)), ...headers });
}

describe('OAuth1Scheme', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await setup(h);
  });
  after(() => h.close());

  it('acts for the access token\'s user with the user\'s role, scopes null, the client as clientId', async () => {
    const r = await get(h, '/article/1');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json().caller, { name: 'ann', role: 'editor', scopes: null, scheme: 'oauth1', clientId: KEY });
  });
  it('takes the role the user has now', async () => {
    await h.users.setUserRole('robot', 'admin');
    const r = await get(h, '/x', { consumerKey: 'two-legged', consumerSecret: 'tl', token: undefined, tokenSecret: undefined });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json().caller, { name: 'robot', role: 'admin', scopes: null, scheme: 'oauth1', clientId: 'two-legged' });
    await h.users.setUserRole('robot', 'reader');
  });
  it('gives a token\'s recorded scopes to the caller', async () => {
    const r = await get(h, '/x', { token: 'scoped', tokenSecret: 's' });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json().caller?.scopes, ['articles:read']);
  });
  it('accepts HMAC-SHA256 and the protocol parameters in the query (§3.5.3)', async () => {
    const params = sign(h, 'GET', '/q?x=1', { signatureMethod: 'HMAC-SHA256' });
    const r = await send(h, 'GET', `/q?x=1&${formOf(params)}`, { host: host(h) });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json().caller?.name, 'ann');
  });
  it('refuses a request without a token for a client acting only for approving users', async () => {
    const r = await get(h, '/x', { token: undefined, tokenSecret: undefined });
    assert.equal(r.status, 401);
    assert.match(String(r.headers['www-authenticate']), /OAuth realm="roa"/);
  });
  it('refuses a token issued to another client', async () => {
    const r = await get(h, '/x', { consumerKey: 'other', consumerSecret: 'o' });
    assert.equal(r.status, 401);
  });
  it('refuses unknown clients and tokens and a wrong secret alike: 401, OAuth challenge among the others', async () => {
    for (const o of [{ consumerKey: 'nobody' }, { token: 'nope' }, { tokenSecret: 'wrong' }, { consumerSecret: 'wrong' }]) {
      const r = await get(h, '/x', o);
      assert.equal(r.status, 401, JSON.stringify(o));
      const challenges = String(r.headers['www-authenticate']);
      assert.match(challenges, /^OAuth realm="roa"/);
      assert.match(challenges, /Basic realm="roa"/);
      assert.equal(r.json().oauthProblem, 'signature_invalid');
    }
  });
  it('refuses a token whose user was removed', async () => {
    h.credentials.accessTokens.set('ghost', { secret: 'g', consumerKey: KEY, userName: 'ghost' });
    assert.equal((await get(h, '/x', { token: 'ghost', tokenSecret: 'g' })).status, 401);
  });
  it('signs the method, path and query: changing any is a 401', async () => {
    const params = sign(h, 'GET', '/a?x=1');
    assert.equal((await send(h, 'GET', '/a?x=2', { host: host(h), authorization: authorizationOf(params) })).status, 401);
    assert.equal((await send(h, 'DELETE', '/a?x=1', { host: host(h), authorization: authorizationOf(sign(h, 'GET', '/a?x=1')) })).status, 401);
    assert.equal((await send(h, 'GET', '/b?x=1', { host: host(h), authorization: authorizationOf(sign(h, 'GET', '/a?x=1')) })).status, 401);
  });
  it('refuses a replayed nonce with 401 nonce_used', async () => {
    const auth = authorizationOf(sign(h, 'GET', '/r'));
    assert.equal((await send(h, 'GET', '/r', { host: host(h), authorization: auth })).status, 200);
    const again = await send(h, 'GET', '/r', { host: host(h), authorization: auth });
    assert.equal(again.status, 401);
    assert.equal(again.json().oauthProblem, 'nonce_used');
  });
  it('keeps nonces per client, token and timestamp: the same nonce with another timestamp is fresh', async () => {
    const nonce = 'shared-nonce';
    assert.equal((await get(h, '/n', { nonce })).status, 200);
    assert.equal((await get(h, '/n', { nonce, timestamp: Math.floor(h.clock.now / 1000) - 1 })).status, 200);
    assert.equal((await get(h, '/n', { nonce, token: 'scoped', tokenSecret: 's' })).status, 200);
    assert.equal((await get(h, '/n', { nonce })).status, 401);
  });
  it('a forged request does not spend the nonce', async () => {
    assert.equal((await get(h, '/f', { nonce: 'forged-first', tokenSecret: 'wrong' })).status, 401);
    assert.equal((await get(h, '/f', { nonce: 'forged-first' })).status, 200);
  });
  it('refuses a timestamp outside the 10-minute window, either side (401 timestamp_refused)', async () => {
    const now = Math.floor(h.clock.now / 1000);
    for (const timestamp of [now - 601, now + 601]) {
      const r = await get(h, '/t', { timestamp });
      assert.equal(r.status, 401);
      assert.equal(r.json().oauthProblem, 'timestamp_refused');
    }
    assert.equal((await get(h, '/t', { timestamp: now - 599 })).status, 200);
  });
  it('refuses PLAINTEXT without TLS (400) and accepts it when a trusted proxy says https', async () => {
    const plain = await get(h, '/p', { signatureMethod: 'PLAINTEXT' });
    assert.equal(plain.status, 400);
    assert.match(plain.json().detail as string, /TLS/);
    const params = signParams({ method: 'GET', url: `https://127.0.0.1:${h.port}/p`, consumerKey: KEY, consumerSecret: SECRET, token: TOKEN, tokenSecret: TOKEN_SECRET, signatureMethod: 'PLAINTEXT', timestamp: Math.floor(h.clock.now / 1000), nonce: 'pt' });
    const tls = await send(h, 'GET', '/p', { host: host(h), 'x-forwarded-proto': 'https', authorization: authorizationOf(params) });
    assert.equal(tls.status, 200, tls.body);
  });
  it('signs with the forwarded scheme and Host lower-cased, default port dropped', async () => {
    const params = signParams({ method: 'GET', url: 'https://api.example.org/v', consumerKey: KEY, consumerSecret: SECRET, token: TOKEN, tokenSecret: TOKEN_SECRET, timestamp: Math.floor(h.clock.now / 1000), nonce: 'fwd' });
    const r = await send(h, 'GET', '/v', { host: 'API.Example.org:443', 'x-forwarded-proto': 'https', authorization: authorizationOf(params) });
    assert.equal(r.status, 200, r.body);
  });
  it('checks oauth_body_hash on a JSON body: a match passes, a changed body is a 401', async () => {
    const body = '{"title":"x"}';
    const hash = createHash('sha1').update(body).digest('base64');
    const ok = await send(h, 'POST', '/b', { host: host(h), 'content-type': 'application/json', authorization: authorizationOf(sign(h, 'POST', '/b', { extra: { oauth_body_hash: hash } })) }, body);
    assert.equal(ok.status, 200, ok.body);
    const bad = await send(h, 'POST', '/b', { host: host(h), 'content-type': 'application/json', authorization: authorizationOf(sign(h, 'POST', '/b', { extra: { oauth_body_hash: hash } })) }, '{"title":"y"}');
    assert.equal(bad.status, 401);
    assert.equal(bad.json().oauthProblem, 'body_hash_invalid');
  });
  it('refuses oauth_body_hash on a form body (400)', async () => {
    const form = [{ name: 'a', value: '1' }];
    const params = sign(h, 'POST', '/b', { form, extra: { oauth_body_hash: '2jmj7l5rSw0yVb/vlWAYkK/YBwk=' } });
    const r = await send(h, 'POST', '/b', { host: host(h), 'content-type': 'application/x-www-form-urlencoded', authorization: authorizationOf(params) }, 'a=1');
    assert.equal(r.status, 400);
  });
  it('signs a form body\'s parameters: changing one is a 401', async () => {
    const form = [{ name: 'title', value: 'a b' }];
    const params = sign(h, 'POST', '/form', { form });
    const r = await send(h, 'POST', '/form', { host: host(h), 'content-type': 'application/x-www-form-urlencoded', authorization: authorizationOf(params) }, 'title=a+c');
    assert.equal(r.status, 401);
  });
  it('accepts oauth_version 1.0 and refuses any other (400)', async () => {
    assert.equal((await get(h, '/v1', { extra: { oauth_version: '1.0' } })).status, 200);
    const r = await get(h, '/v1', { extra: { oauth_version: '2.0' } });
    assert.equal(r.status, 400);
    assert.equal(r.json().oauthProblem, 'version_rejected');
  });
});

describe('OAuth1Scheme refuses malformed and hostile requests with a clear 4xx', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await setup(h);
  });
  after(() => h.close());

  const expect400 = async (r: Awaited<ReturnType<typeof send>>, pattern: RegExp): Promise<void> => {
    assert.equal(r.status, 400, r.body);
    assert.match(String(r.headers['content-type']), /problem\+json/);
    assert.match(r.json().detail as string, pattern);
  };
  const valid = (path = '/x'): string => authorizationOf(sign(h, 'GET', path));

  it('a header not of name="value" pairs', async () => {
    for (const bad of ['OAuth oauth_consumer_key=unquoted', 'OAuth oauth_nonce="a" oauth_token="b"', 'OAuth "x"', 'OAuth oauth_nonce="a\\"b"', 'OAuth =""']) {
      await expect400(await send(h, 'GET', '/x', { host: host(h), authorization: bad }), /Malformed OAuth Authorization header/);
    }
  });
  it('missing required parameters, naming the first', async () => {
    const r = await send(h, 'GET', '/x', { host: host(h), authorization: valid().replace(/oauth_nonce="[^"]*", /, '') });
    await expect400(r, /oauth_nonce is required/);
    assert.equal(r.json().oauthProblem, 'parameter_absent');
    await expect400(await send(h, 'GET', '/x', { host: host(h), authorization: 'OAuth realm="roa"' }), /no OAuth protocol parameters|required/);
  });
  it('an unsupported signature method', async () => {
    const r = await send(h, 'GET', '/x', { host: host(h), authorization: valid().replace('HMAC-SHA1', 'HMAC-MD5') });
    await expect400(r, /Unsupported oauth_signature_method/);
    assert.equal(r.json().oauthProblem, 'signature_method_rejected');
  });
  it('a protocol parameter given twice, in the header or in the query', async () => {
    await expect400(await send(h, 'GET', '/x', { host: host(h), authorization: `${valid()}, oauth_nonce="again"` }), /given twice/);
    const params = sign(h, 'GET', '/x');
    await expect400(await send(h, 'GET', `/x?${formOf(params)}&oauth_nonce=again`, { host: host(h) }), /given twice/);
  });
  it('protocol parameters in the header and in the query', async () => {
    await expect400(await send(h, 'GET', '/x?oauth_callback=oob', { host: host(h), authorization: valid('/x?oauth_callback=oob') }), /in the header and in the query/);
  });
  it('protocol parameters in the query and in a form body', async () => {
    const params = sign(h, 'POST', '/x');
    await expect400(await send(h, 'POST', `/x?${formOf(params)}`, { host: host(h), 'content-type': 'application/x-www-form-urlencoded' }, 'oauth_callback=oob'), /in the query and in the body/);
  });
  it('bad percent-encoding in the header, the query and the body', async () => {
    await expect400(await send(h, 'GET', '/x', { host: host(h), authorization: valid().replace(/oauth_nonce="[^"]*"/, 'oauth_nonce="%zz"') }), /percent-encoding/);
    await expect400(await send(h, 'GET', '/x?a=%E0%A4%A', { host: host(h), authorization: valid('/x?a=%E0%A4%A') }), /percent-encoding/);
    await expect400(await send(h, 'GET', '/x?a=%FF', { host: host(h), authorization: valid('/x') }), /UTF-8/);
    await expect400(await send(h, 'POST', '/x', { host: host(h), 'content-type': 'application/x-www-form-urlencoded', authorization: valid('/x') }, 'a=%'), /percent-encoding/);
  });
  it('a non-numeric timestamp', async () => {
    await expect400(await get(h, '/x', { timestamp: 'soon' as unknown as number }), /oauth_timestamp/);
  });
  it(`a header longer than the default ${DEFAULT_OAUTH1_LIMITS.headerLength} characters → 431`, async () => {
    const r = await send(h, 'GET', '/x', { host: host(h), authorization: `${valid()}, x="${'a'.repeat(DEFAULT_OAUTH1_LIMITS.headerLength)}"` });
    assert.equal(r.status, 431);
    assert.equal(r.json().code, 'ROA_ERR_OAUTH1_HEADER_TOO_LARGE');
  });
  it(`a protocol value longer than the default ${DEFAULT_OAUTH1_LIMITS.protocolValueLength} characters`, async () => {
    const r = await send(h, 'GET', '/x', { host: host(h), authorization: valid().replace(/oauth_nonce="[^"]*"/, `oauth_nonce="${'n'.repeat(DEFAULT_OAUTH1_LIMITS.protocolValueLength + 1)}"`) });
    await expect400(r, /longer than 4096/);
  });
  it(`more than the default ${DEFAULT_OAUTH1_LIMITS.parameters} parameters`, async () => {
    const form = Array.from({ length: DEFAULT_OAUTH1_LIMITS.parameters + 1 }, (_, i) => `p${i}=1`).join('&');
    const r = await send(h, 'POST', '/x', { host: host(h), 'content-type': 'application/x-www-form-urlencoded', authorization: valid() }, form);
    assert.equal(r.status, 400);
    assert.equal(r.json().code, 'ROA_ERR_OAUTH1_TOO_MANY_PARAMETERS');
  });
  it('a form body over the body limit → 413, before any lookup', async () => {
    const r = await send(h, 'POST', '/x', { host: host(h), 'content-type': 'application/x-www-form-urlencoded', authorization: valid() }, `a=${'x'.repeat(200 * 1024)}`);
    assert.equal(r.status, 413);
  });
  it('OAuth 1 beside another scheme: Authorization + Authentication, and query parameters + Basic', async () => {
    await expect400(await send(h, 'GET', '/x', { host: host(h), authorization: valid(), authentication: 'hmac ann:abc' }), /one authentication scheme/);
    const params = sign(h, 'GET', '/x');
    const basic = 'Basic ' + Buffer.from('ann:x').toString('base64');
    await expect400(await send(h, 'GET', `/x?${formOf(params)}`, { host: host(h), authorization: basic }), /one authentication scheme/);
  });
});

describe('verifyOAuth1Request as the /oauth1 endpoints call it', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    await setup(h);
    h.credentials.temporary.set('temp', { secret: 'temp-secret', consumerKey: KEY });
  });
  after(() => h.close());

  it('reads the protocol parameters from a form body (§3.5.2) and returns oauth_callback', async () => {
    const form = [{ name: 'oauth_callback', value: 'https://app.example/cb?x=1' }];
    const params = sign(h, 'POST', '/verify-initiate', { token: undefined, tokenSecret: undefined, form });
    const r = await send(h, 'POST', '/verify-initiate', { host: host(h), 'content-type': 'application/x-www-form-urlencoded' }, formOf([...form, ...params]));
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json(), { consumer: KEY, callback: 'https://app.example/cb?x=1', place: 'body' });
  });
  it('treats an empty oauth_token as none where no token may be sent', async () => {
    const params = sign(h, 'POST', '/verify-initiate', { token: '', tokenSecret: undefined, extra: { oauth_callback: 'oob' } });
    const r = await send(h, 'POST', '/verify-initiate', { host: host(h), authorization: authorizationOf(params) });
    assert.equal(r.status, 200, r.body);
  });
  it('refuses a token where none may be sent, and requires one where it must be (400)', async () => {
    const withToken = sign(h, 'POST', '/verify-initiate', { extra: { oauth_callback: 'oob' } });
    const r1 = await send(h, 'POST', '/verify-initiate', { host: host(h), authorization: authorizationOf(withToken) });
    assert.equal(r1.status, 400);
    const without = sign(h, 'POST', '/verify-token', { token: undefined, tokenSecret: undefined, extra: { oauth_verifier: 'v' } });
    const r2 = await send(h, 'POST', '/verify-token', { host: host(h), authorization: authorizationOf(without) });
    assert.equal(r2.status, 400);
    assert.equal(r2.json().oauthProblem, 'parameter_absent');
  });
  it('verifies with temporary credentials and returns oauth_verifier; an access token is not one', async () => {
    const ok = sign(h, 'POST', '/verify-token', { token: 'temp', tokenSecret: 'temp-secret', extra: { oauth_verifier: 'ver1' } });
    const r = await send(h, 'POST', '/verify-token', { host: host(h), authorization: authorizationOf(ok) });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json(), { consumer: KEY, verifier: 'ver1' });
    const access = sign(h, 'POST', '/verify-token', { extra: { oauth_verifier: 'ver1' } });
    assert.equal((await send(h, 'POST', '/verify-token', { host: host(h), authorization: authorizationOf(access) })).status, 401);
  });
});

describe('OAuth1Scheme with limits set', () => {
  it('applies a configured header limit', async () => {
    const h = await startHarness({ limits: { headerLength: 300 } });
    try {
      await setup(h);
      const r = await send(h, 'GET', '/x', { host: host(h), authorization: `${authorizationOf(sign(h, 'GET', '/x'))}, x="${'a'.repeat(100)}"` });
      assert.equal(r.status, 431);
    } finally {
      await h.close();
    }
  });
  it('refuses a limit that is not a positive integer at construction', async () => {
    await assert.rejects(startHarness({ limits: { parameters: 0 } }).then((h) => h.close()), /positive integer/);
  });
});

describe('OAuth1Scheme with a failing nonce store', () => {
  it('fails closed with 503 and Retry-After, and accepts again once the store answers', async () => {
    const store = new MemoryAuthStore();
    const h = await startHarness({ nonces: new StoreNonceStore(store) });
    try {
      await setup(h);
      store.failNonces = true;
      const r = await get(h, '/x');
      assert.equal(r.status, 503);
      assert.equal(r.headers['retry-after'], '5');
      store.failNonces = false;
      assert.equal((await get(h, '/x')).status, 200);
    } finally {
      await h.close();
    }
  });
});
