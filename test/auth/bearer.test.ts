/** @module test/auth/bearer — opaque-token edge cases, and the constant-time checks of the token service. */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { BearerScheme } from '../../src/auth/bearer.js';
import { MAX_TOKEN_LIFETIME_MS, OAuthTokenService } from '../../src/auth/oauth-token.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { safeEqual } from '../../src/auth/safe-equal.js';
import { generateClientSecret, generateToken, hashClientSecret, hashToken, verifyClientSecret } from '../../src/auth/tokens.js';
import type { HttpError } from '../../src/errors/http-error.js';
import type { Request } from '../../src/http/request.js';
import { MemoryAuthStore } from './memory-store.js';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js';

const req = (token: string) => ({ headers: { authorization: `Bearer ${token}` }, locals: {} }) as unknown as Request;

async function fixture() {
  const store = new MemoryAuthStore();
  await store.createUser({ name: 'ann', role: 'editor', passwordHash: await hashPassword('pw', { N: 1024, r: 8, p: 1 }) });
  const { clientSecret, secretHash } = generateClientSecret();
  await store.createClient({ clientId: 'cli', secretHash, userName: 'ann', scopes: ['articles:read'] });
  const token = generateToken();
  const base = { clientId: 'cli', userName: 'ann', scopes: ['articles:read'], familyId: 'f' };
  await store.saveToken({ ...base, hash: hashToken(token), kind: 'access', expiresAt: new Date(Date.now() + 60_000) });
  return { store, token, clientSecret, base };
}

const invalidToken = (e: HttpError) => e.status === 401 && e.headers['WWW-Authenticate'] === 'Bearer realm="roa", error="invalid_token"';

describe('BearerScheme (opaque)', () => {
  it('resolves a live token with its scopes', async () => {
    const { store, token } = await fixture();
    const caller = await new BearerScheme({ store }).authenticate(req(token));
    assert.deepEqual(caller, { name: 'ann', role: 'editor', scopes: ['articles:read'], scheme: 'bearer', clientId: 'cli' });
  });
  it('refuses expired, revoked, refresh-kind, unknown tokens and tokens of removed clients', async () => {
    const { store, token, base } = await fixture();
    const expired = generateToken();
    await store.saveToken({ ...base, hash: hashToken(expired), kind: 'access', expiresAt: new Date(Date.now() - 1) });
    const refresh = generateToken();
    await store.saveToken({ ...base, hash: hashToken(refresh), kind: 'refresh', expiresAt: new Date(Date.now() + 60_000) });
    const scheme = new BearerScheme({ store });
    for (const t of [expired, refresh, generateToken()]) await assert.rejects(scheme.authenticate(req(t)), invalidToken);
    await store.revokeToken(hashToken(token));
    await assert.rejects(scheme.authenticate(req(token)), invalidToken);
    const other = await fixture();
    await other.store.removeClient('cli');
    await assert.rejects(new BearerScheme({ store: other.store }).authenticate(req(other.token)), invalidToken);
  });
  it('answers without a promise on an in-process store once user and client are cached; revocation is seen at once', async () => {
    const store = new SqliteStore(':memory:');
    try {
      await store.createUser({ name: 'ann', role: 'editor', passwordHash: 'scrypt$x' });
      await store.createClient({ clientId: 'cli', secretHash: 'sha256$x', userName: 'ann', scopes: ['articles:read'] });
      const token = generateToken();
      await store.saveToken({ hash: hashToken(token), kind: 'access', clientId: 'cli', userName: 'ann', scopes: ['articles:read'], familyId: 'f', expiresAt: new Date(Date.now() + 60_000) });
      const scheme = new BearerScheme({ store });
      // The first request loads user and client records: a promise.
      const first = scheme.authenticateNow(req(token));
      assert.ok(first instanceof Promise);
      const expected = { name: 'ann', role: 'editor', scopes: ['articles:read'], scheme: 'bearer', clientId: 'cli' };
      assert.deepEqual(await first, expected);
      const second = scheme.authenticateNow(req(token));
      assert.deepEqual(second, expected);
      (second as { scopes: string[] }).scopes.push('articles:write');
      assert.deepEqual(scheme.authenticateNow(req(token)), expected, 'each caller gets its own scopes');
      // Revoked, unknown and refresh-kind tokens are refused synchronously too.
      await store.revokeToken(hashToken(token));
      assert.throws(() => scheme.authenticateNow(req(token)), invalidToken);
      assert.throws(() => scheme.authenticateNow(req(generateToken())), invalidToken);
    } finally {
      await store.close();
    }
  });
  it('stores only hashes', async () => {
    const { store, token } = await fixture();
    assert.ok(!store.tokens.has(token));
    assert.ok(store.tokens.has(hashToken(token)));
  });
});

describe('client secrets', () => {
  it('hashes generated secrets as sha256$ and verifies them through safeEqual', async () => {
    const { clientSecret, secretHash } = generateClientSecret();
    assert.match(secretHash, /^sha256\$[A-Za-z0-9_-]{43}$/);
    assert.equal(secretHash, hashClientSecret(clientSecret));
    let calls = 0;
    const spy = (a: string | Uint8Array, b: string | Uint8Array) => (calls++, safeEqual(a, b));
    assert.equal(await verifyClientSecret(clientSecret, secretHash, spy), true);
    assert.equal(await verifyClientSecret('wrong', secretHash, spy), false);
    assert.equal(calls, 2);
  });
  it('also accepts scrypt-hashed client secrets', async () => {
    assert.equal(await verifyClientSecret('human', await hashPassword('human', { N: 1024, r: 8, p: 1 })), true);
  });
  it('the token service compares client secrets and passwords through safeEqual, unknown clients included', async () => {
    const { store, clientSecret } = await fixture();
    let calls = 0;
    const oauth = new OAuthTokenService({ store, issuer: 'https://as.example', safeEqual: (a, b) => (calls++, safeEqual(a, b)) });
    const client = await oauth.authenticateClient({ clientId: 'cli', clientSecret, method: 'client_secret_basic' });
    assert.equal(calls, 1);
    await assert.rejects(oauth.authenticateClient({ clientId: 'nobody', clientSecret, method: 'client_secret_basic' }));
    assert.equal(calls, 2);
    await oauth.token(new URLSearchParams({ grant_type: 'password', username: 'ann', password: 'pw' }), client);
    assert.equal(calls, 3);
  });
  it('throttles failed passwords per user with 429 invalid_grant', async () => {
    const { store, clientSecret } = await fixture();
    const oauth = new OAuthTokenService({ store, issuer: 'https://as.example' });
    const client = await oauth.authenticateClient({ clientId: 'cli', clientSecret, method: 'client_secret_basic' });
    const attempt = (password: string) => oauth.token(new URLSearchParams({ grant_type: 'password', username: 'ann', password }), client);
    for (let i = 0; i < 10; i++) await assert.rejects(attempt('bad'), { error: 'invalid_grant', status: 400 });
    await assert.rejects(attempt('pw'), { error: 'invalid_grant', status: 429 });
  });
  it('restricts the password grant to first-party clients when configured', async () => {
    const { store, clientSecret } = await fixture();
    const oauth = new OAuthTokenService({ store, issuer: 'https://as.example', passwordGrantClients: ['web'] });
    const client = await oauth.authenticateClient({ clientId: 'cli', clientSecret, method: 'client_secret_basic' });
    await assert.rejects(oauth.token(new URLSearchParams({ grant_type: 'password', username: 'ann', password: 'pw' }), client), { error: 'unauthorized_client' });
  });
  it('refuses an issuer with a path at construction', () => {
    assert.throws(() => new OAuthTokenService({ store: new MemoryAuthStore(), issuer: 'https://as.example/tenant' }), /issuer/);
  });
  it('refuses token lifetimes that are not positive or whose expiry would not be a valid date, at construction', () => {
    const make = (o: { accessTokenTtlMs?: number; refreshTokenTtlMs?: number }) => () => new OAuthTokenService({ store: new MemoryAuthStore(), issuer: 'https://as.example', ...o });
    assert.throws(make({ accessTokenTtlMs: 0 }), RangeError);
    assert.throws(make({ refreshTokenTtlMs: -1 }), RangeError);
    assert.throws(make({ accessTokenTtlMs: MAX_TOKEN_LIFETIME_MS + 1 }), /accessTokenTtlMs must be positive and at most 10 years/);
    assert.throws(make({ refreshTokenTtlMs: 1e17 }), /refreshTokenTtlMs/);
    assert.doesNotThrow(make({ accessTokenTtlMs: MAX_TOKEN_LIFETIME_MS, refreshTokenTtlMs: 1 }));
  });
});

describe('BearerScheme (JWT) without a promise', () => {
  it('answers a recently verified JWT as a value; revocation in this process sends it back to the store', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { JwtAccessTokens } = await import('../../src/auth/jwt-keys.js');
    const dir = mkdtempSync(join(tmpdir(), 'roa-bearer-jwt-'));
    try {
      const { store, base } = await fixture();
      const jwt = await JwtAccessTokens.load({ issuer: 'https://as.example', keyFile: join(dir, 'jwt.json') });
      const token = await jwt.sign({ sub: 'ann', clientId: 'cli', scopes: ['articles:read'], roles: ['editor'], jti: 'j1', expiresAt: new Date(Date.now() + 60_000) });
      await store.saveToken({ ...base, hash: hashToken(token), kind: 'access', expiresAt: new Date(Date.now() + 60_000) });
      const scheme = new BearerScheme({ store, jwt });
      const first = scheme.authenticateNow(req(token));
      assert.ok(first instanceof Promise, 'the first use verifies the signature and asks the store');
      const want = { name: 'ann', role: 'editor', scopes: ['articles:read'], scheme: 'bearer', clientId: 'cli' };
      assert.deepEqual(await first, want);
      const again = scheme.authenticateNow(req(token));
      assert.ok(!(again instanceof Promise));
      assert.deepEqual(again, want);
      // authenticate() keeps its promise either way.
      assert.ok(scheme.authenticate(req(token)) instanceof Promise);
      await store.revokeToken(hashToken(token));
      jwt.noteRevocation();
      const revoked = scheme.authenticateNow(req(token));
      assert.ok(revoked instanceof Promise);
      await assert.rejects(revoked, invalidToken);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
