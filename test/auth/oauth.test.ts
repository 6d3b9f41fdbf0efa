/** @module test/auth/oauth — the OAuth endpoints driven by oauth4webapi as an independent client. */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from '../helpers/node-test.js';
import * as oauth from 'oauth4webapi';
import { createApp } from '../../src/app.js';
import { Authenticator } from '../../src/auth/authenticator.js';
import { BearerScheme } from '../../src/auth/bearer.js';
import { JwtAccessTokens } from '../../src/auth/jwt-keys.js';
import { createOAuthRouter } from '../../src/auth/oauth-router.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { requireScope } from '../../src/auth/scopes.js';
import { ARTICLE_SCOPE_LIST } from '../../src/resources/article/article-scopes.js';
import { FailureThrottle } from '../../src/auth/throttle.js';
import { generateClientSecret } from '../../src/auth/tokens.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { openStore } from '../../src/storage/open-store.js';
import type { Store } from '../../src/storage/store.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

interface Env {
  url: string;
  store: Store;
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  secret: string;
  readerSecret: string;
  close(): Promise<void>;
}

async function start(opts: { jwt?: boolean; passwordGrant?: boolean; throttle?: FailureThrottle } = {}): Promise<Env> {
  const store = await openStore(':memory:');
  await store.createUser({ name: 'ann', role: 'editor', passwordHash: await hashPassword('pw-ann', { N: 1024, r: 8, p: 1 }) });
  const { clientSecret: secret, secretHash } = generateClientSecret();
  await store.createClient({ clientId: 'cli', secretHash, userName: 'ann', scopes: ['articles:read', 'articles:write'] });
  const reader = generateClientSecret();
  await store.createClient({ clientId: 'reader', secretHash: reader.secretHash, userName: 'ann', scopes: ['articles:read'] });

  let handler: (req: Request, res: Response) => void = () => {};
  const server = createServer((req, res) => handler(req as Request, res as unknown as Response));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = url + '/';
  const dir = mkdtempSync(join(tmpdir(), 'roa-oauth-'));
  const jwt = opts.jwt ? await JwtAccessTokens.load({ issuer, keyFile: join(dir, 'jwt.json') }) : undefined;

  const app = createApp({ env: 'production' });
  app.use(createOAuthRouter({ store, issuer, jwt, passwordGrant: opts.passwordGrant, throttle: opts.throttle, scopesSupported: ARTICLE_SCOPE_LIST }));
  const auth = new Authenticator([new BearerScheme({ store, jwt })]);
  app.use(auth.middleware());
  app.get('/articles', (req: Request, res: Response) => {
    const caller = req.locals.caller as { name: string; scopes: string[] } | undefined;
    if (!caller) throw auth.unauthorized();
    requireScope(caller as never, 'articles:read');
    res.json({ caller });
  });
  app.post('/articles', (req: Request, res: Response) => {
    const caller = req.locals.caller;
    if (!caller) throw auth.unauthorized();
    requireScope(caller as never, 'articles:write');
    res.status(201).json({ ok: true });
  });
  handler = app as never;

  const as = await oauth.processDiscoveryResponse(new URL(issuer), await oauth.discoveryRequest(new URL(issuer), { ...insecure, algorithm: 'oauth2' }));
  return {
    url,
    store,
    as,
    client: { client_id: 'cli' },
    secret,
    readerSecret: reader.clientSecret,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function clientCredentials(e: Env, scope?: string, auth = oauth.ClientSecretBasic(e.secret), client = e.client) {
  const r = await oauth.clientCredentialsGrantRequest(e.as, client, auth, scope ? { scope } : {}, insecure);
  return oauth.processClientCredentialsResponse(e.as, client, r);
}

async function password(e: Env, username = 'ann', pw = 'pw-ann') {
  const r = await oauth.genericTokenEndpointRequest(e.as, e.client, oauth.ClientSecretBasic(e.secret), 'password', { username, password: pw }, insecure);
  return oauth.processGenericTokenEndpointResponse(e.as, e.client, r);
}

async function refresh(e: Env, token: string) {
  const r = await oauth.refreshTokenGrantRequest(e.as, e.client, oauth.ClientSecretBasic(e.secret), token, insecure);
  return oauth.processRefreshTokenResponse(e.as, e.client, r);
}

const bearer = (e: Env, token: string, method = 'GET') => fetch(e.url + '/articles', { method, headers: { authorization: `Bearer ${token}` } });

async function oauthError(p: Promise<unknown>): Promise<{ error: string; status: number }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) return { error: err.error, status: err.status };
    throw err;
  }
  assert.fail('expected an OAuth error');
}

for (const mode of ['opaque', 'jwt'] as const) {
  describe(`OAuth endpoints (${mode} access tokens)`, () => {
    let e: Env;
    before(async () => {
      e = await start({ jwt: mode === 'jwt' });
    });
    after(() => e.close());

    it('publishes RFC 8414 metadata', () => {
      assert.equal(e.as.token_endpoint, e.url + '/oauth/token');
      assert.equal(e.as.revocation_endpoint, e.url + '/oauth/revoke');
      assert.equal(e.as.introspection_endpoint, e.url + '/oauth/introspect');
      assert.deepEqual(e.as.grant_types_supported, ['client_credentials', 'password', 'refresh_token']);
      assert.deepEqual(e.as.scopes_supported, ['articles:read', 'articles:write']);
      assert.deepEqual(e.as.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post']);
      assert.equal(e.as.jwks_uri, mode === 'jwt' ? e.url + '/oauth/jwks.json' : undefined);
    });

    it('issues client_credentials tokens (Basic and body auth) that read but do not write without the scope', async () => {
      const t = await clientCredentials(e, 'articles:read');
      assert.equal(t.token_type, 'bearer');
      assert.equal(t.expires_in, 900);
      assert.equal(t.refresh_token, undefined);
      assert.equal(t.scope, 'articles:read');
      if (mode === 'opaque') assert.match(t.access_token, /^[A-Za-z0-9_-]{43}$/);
      const ok = await bearer(e, t.access_token);
      assert.equal(ok.status, 200);
      assert.deepEqual(((await ok.json()) as { caller: unknown }).caller, { name: 'ann', role: 'editor', scopes: ['articles:read'], scheme: 'bearer', clientId: 'cli' });
      const denied = await bearer(e, t.access_token, 'POST');
      assert.equal(denied.status, 403);
      assert.equal(denied.headers.get('www-authenticate'), 'Bearer realm="roa", error="insufficient_scope", scope="articles:write"');
      const post = await clientCredentials(e, undefined, oauth.ClientSecretPost(e.secret));
      assert.equal(post.scope, 'articles:read articles:write');
      assert.equal((await bearer(e, post.access_token, 'POST')).status, 201);
    });

    it('sends no-store on token responses', async () => {
      const r = await oauth.clientCredentialsGrantRequest(e.as, e.client, oauth.ClientSecretBasic(e.secret), {}, insecure);
      assert.equal(r.headers.get('cache-control'), 'no-store');
      assert.equal(r.headers.get('pragma'), 'no-cache');
    });

    it('rejects a scope beyond the client with invalid_scope', async () => {
      const r = await oauthError(clientCredentials(e, 'articles:write', oauth.ClientSecretBasic(e.readerSecret), { client_id: 'reader' }));
      assert.deepEqual(r, { error: 'invalid_scope', status: 400 });
    });

    it('rejects a wrong client secret with invalid_client 401 + challenge (Basic)', async () => {
      const r = await oauth.clientCredentialsGrantRequest(e.as, e.client, oauth.ClientSecretBasic('wrong'), {}, insecure);
      assert.equal(r.status, 401);
      assert.equal(r.headers.get('www-authenticate'), 'Basic realm="roa"');
      assert.equal(r.headers.get('cache-control'), 'no-store');
      assert.equal(((await r.json()) as { error: string }).error, 'invalid_client');
      const post = await oauthError(clientCredentials(e, undefined, oauth.ClientSecretPost('wrong')));
      assert.deepEqual(post, { error: 'invalid_client', status: 400 });
    });

    it('issues password-grant tokens and refuses a bad password with invalid_grant', async () => {
      const t = await password(e);
      assert.ok(t.refresh_token);
      assert.equal((await bearer(e, t.access_token)).status, 200);
      assert.deepEqual(await oauthError(password(e, 'ann', 'nope')), { error: 'invalid_grant', status: 400 });
      assert.deepEqual(await oauthError(password(e, 'nobody', 'nope')), { error: 'invalid_grant', status: 400 });
    });

    it('rotates refresh tokens and revokes the family on reuse', async () => {
      const first = await password(e);
      const second = await refresh(e, first.refresh_token!);
      assert.notEqual(second.refresh_token, first.refresh_token);
      assert.equal((await bearer(e, second.access_token)).status, 200);
      // The used refresh token comes back: reuse. The whole family dies, including the newest tokens.
      assert.deepEqual(await oauthError(refresh(e, first.refresh_token!)), { error: 'invalid_grant', status: 400 });
      assert.deepEqual(await oauthError(refresh(e, second.refresh_token!)), { error: 'invalid_grant', status: 400 });
      const dead = await bearer(e, second.access_token);
      assert.equal(dead.status, 401);
      assert.equal(dead.headers.get('www-authenticate'), 'Bearer realm="roa", error="invalid_token"');
    });

    it('refuses a refresh token presented by another client', async () => {
      const t = await password(e);
      const other = { client_id: 'reader' };
      const r = await oauth.refreshTokenGrantRequest(e.as, other, oauth.ClientSecretBasic(e.readerSecret), t.refresh_token!, insecure);
      assert.deepEqual(await oauthError(oauth.processRefreshTokenResponse(e.as, other, r)), { error: 'invalid_grant', status: 400 });
    });

    it('introspects active and inactive tokens', async () => {
      const t = await clientCredentials(e, 'articles:read');
      const r = await oauth.introspectionRequest(e.as, e.client, oauth.ClientSecretBasic(e.secret), t.access_token, insecure);
      const info = await oauth.processIntrospectionResponse(e.as, e.client, r);
      assert.equal(info.active, true);
      assert.equal(info.scope, 'articles:read');
      assert.equal(info.client_id, 'cli');
      assert.equal(info.username, 'ann');
      const bad = await oauth.introspectionRequest(e.as, e.client, oauth.ClientSecretBasic(e.secret), 'not-a-token', insecure);
      assert.deepEqual(await oauth.processIntrospectionResponse(e.as, e.client, bad), { active: false });
    });

    it("shows a token only to the client it was issued to, or to a client of an admin user (a resource server)", async () => {
      const t = await clientCredentials(e, 'articles:read');
      const ask = async (clientId: string, secret: string) => {
        const r = await oauth.introspectionRequest(e.as, { client_id: clientId }, oauth.ClientSecretBasic(secret), t.access_token, insecure);
        return oauth.processIntrospectionResponse(e.as, { client_id: clientId }, r);
      };
      // Another client of the same user learns nothing about it.
      assert.deepEqual(await ask('reader', e.readerSecret), { active: false });
      await e.store.createUser({ name: 'root', role: 'admin', passwordHash: await hashPassword('pw-root', { N: 1024, r: 8, p: 1 }) });
      const rs = generateClientSecret();
      await e.store.createClient({ clientId: 'resource-server', secretHash: rs.secretHash, userName: 'root', scopes: ['articles:read'] });
      const seen = await ask('resource-server', rs.clientSecret);
      assert.equal(seen.active, true);
      assert.equal(seen.client_id, 'cli');
    });

    it('revokes access tokens, refresh-token families, and answers 200 for unknown tokens', async () => {
      const t = await password(e);
      const rv = (token: string) => oauth.revocationRequest(e.as, e.client, oauth.ClientSecretBasic(e.secret), token, insecure);
      await oauth.processRevocationResponse(await rv('unknown-token'));
      const cc = await clientCredentials(e);
      await oauth.processRevocationResponse(await rv(cc.access_token));
      assert.equal((await bearer(e, cc.access_token)).status, 401);
      // RFC 7009 §2.1: another client's token is refused, not silently kept.
      const foreign = await oauth.revocationRequest(e.as, { client_id: 'reader' }, oauth.ClientSecretBasic(e.readerSecret), t.access_token, insecure);
      assert.equal(foreign.status, 400);
      assert.equal(((await foreign.json()) as { error: string }).error, 'unauthorized_client');
      assert.equal((await bearer(e, t.access_token)).status, 200, "another client's revocation leaves the token valid");
      await oauth.processRevocationResponse(await rv(t.refresh_token!));
      assert.equal((await bearer(e, t.access_token)).status, 401, 'revoking the refresh token revokes its family');
      assert.deepEqual(await oauthError(refresh(e, t.refresh_token!)), { error: 'invalid_grant', status: 400 });
    });

    it('answers 401 invalid_token for unknown and malformed-but-valid-syntax tokens, 400 for bad syntax', async () => {
      const r = await bearer(e, 'A'.repeat(43));
      assert.equal(r.status, 401);
      assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="roa", error="invalid_token"');
      const bad = await fetch(e.url + '/articles', { headers: { authorization: 'Bearer a b' } });
      assert.equal(bad.status, 400);
      const empty = await fetch(e.url + '/articles', { headers: { authorization: 'Bearer' } });
      assert.equal(empty.status, 400);
    });
  });
}

describe('OAuth endpoints: JWT mode specifics', () => {
  let e: Env;
  before(async () => {
    e = await start({ jwt: true });
  });
  after(() => e.close());

  it('issues RFC 9068 at+jwt tokens verifiable with the published JWKS', async () => {
    const { createRemoteJWKSet, jwtVerify } = await import('jose');
    const t = await clientCredentials(e, 'articles:read');
    const jwks = createRemoteJWKSet(new URL(e.as.jwks_uri!));
    const { payload, protectedHeader } = await jwtVerify(t.access_token, jwks, { issuer: e.as.issuer, audience: e.as.issuer, typ: 'at+jwt' });
    assert.equal(protectedHeader.alg, 'ES256');
    assert.equal(payload.sub, 'ann');
    assert.equal(payload.client_id, 'cli');
    assert.equal(payload.scope, 'articles:read');
    assert.ok(payload.jti && payload.exp && payload.iat);
  });
  it('refuses a tampered JWT', async () => {
    const t = await clientCredentials(e, 'articles:read');
    const [h, p, s] = t.access_token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), scope: 'articles:write' })).toString('base64url');
    assert.equal((await bearer(e, `${h}.${forged}.${s}`, 'POST')).status, 401);
  });
});

describe('OAuth token endpoint: options, form rules, throttling', () => {
  let e: Env;
  before(async () => {
    e = await start({ passwordGrant: false, throttle: new FailureThrottle({ limit: 3, windowMs: 60_000 }) });
  });
  after(() => e.close());

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(e.url + '/oauth/token', { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
  const basic = (id: string, secret: string) => 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64');

  it('answers OPTIONS with Allow, and other methods with 405 and the same Allow', async () => {
    const paths: Array<[string, string]> = [
      ['/oauth/token', 'POST, OPTIONS'],
      ['/oauth/revoke', 'POST, OPTIONS'],
      ['/oauth/introspect', 'POST, OPTIONS'],
      ['/.well-known/oauth-authorization-server', 'GET, HEAD, OPTIONS'],
    ];
    for (const [path, allow] of paths) {
      const options = await fetch(e.url + path, { method: 'OPTIONS' });
      assert.equal(options.status, 204, path);
      assert.equal(options.headers.get('allow'), allow, path);
      const wrong = await fetch(e.url + path, { method: allow.startsWith('POST') ? 'GET' : 'PUT' });
      assert.equal(wrong.status, 405, path);
      assert.equal(wrong.headers.get('allow'), allow, path);
      await wrong.arrayBuffer();
    }
  });
  it('reports the password grant as unsupported when disabled', async () => {
    assert.deepEqual(e.as.grant_types_supported, ['client_credentials', 'refresh_token']);
    assert.deepEqual(await oauthError(password(e)), { error: 'unsupported_grant_type', status: 400 });
  });
  it('answers invalid_request for a non-form body, a missing grant_type and repeated parameters', async () => {
    const json = await fetch(e.url + '/oauth/token', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', authorization: basic('cli', e.secret) } });
    assert.equal(((await json.json()) as { error: string }).error, 'invalid_request');
    for (const body of ['', 'grant_type=client_credentials&grant_type=client_credentials']) {
      const r = await post(body, { authorization: basic('cli', e.secret) });
      assert.equal(r.status, 400);
      assert.equal(((await r.json()) as { error: string }).error, 'invalid_request');
    }
  });
  it('answers unsupported_grant_type for an unknown grant', async () => {
    const r = await post('grant_type=authorization_code', { authorization: basic('cli', e.secret) });
    assert.equal(((await r.json()) as { error: string }).error, 'unsupported_grant_type');
  });
  it('refuses two client authentication methods at once (RFC 6749 §2.3.1)', async () => {
    const r = await post(`grant_type=client_credentials&client_id=cli&client_secret=${e.secret}`, { authorization: basic('cli', e.secret) });
    assert.equal(r.status, 400);
    assert.equal(((await r.json()) as { error: string }).error, 'invalid_request');
  });
  it('answers 401 with a challenge when no client credentials are sent', async () => {
    const r = await post('grant_type=client_credentials');
    assert.equal(r.status, 401);
    assert.equal(r.headers.get('www-authenticate'), 'Basic realm="roa"');
  });
  it('throttles failed client secrets: 429 + Retry-After even for the right secret', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await post('grant_type=client_credentials', { authorization: basic('reader', 'bad') })).status, 401);
    const r = await post('grant_type=client_credentials', { authorization: basic('reader', e.readerSecret) });
    assert.equal(r.status, 429);
    assert.ok(Number(r.headers.get('retry-after')) > 0);
    assert.equal(((await r.json()) as { error: string }).error, 'invalid_client');
    assert.equal((await post('grant_type=client_credentials', { authorization: basic('cli', e.secret) })).status, 200, 'other clients are unaffected');
  });
});
