/**
 * @module test/auth/oauth-code
 * The authorization code flow with PKCE against the started service, oauth4webapi as the client,
 * and the negative cases RFC 9700 lists: redirect URI mismatch, missing or plain PKCE, a wrong
 * verifier, code reuse (its tokens revoked), an expired code, state echoed exactly, no open
 * redirect, iss in every answer.
 */
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { after, before, describe, it } from '../helpers/node-test.js';
import {
  answerPage, approve, authorizeUrl, insecure, NATIVE_REDIRECT, oauthError, pkceRequest, startCodeEnv, WEB_REDIRECT, type CodeEnv,
} from './oauth-code-helpers.js';

describe('OAuth 2.0 authorization code flow with PKCE', () => {
  let env: CodeEnv;
  before(async () => {
    env = await startCodeEnv();
  });
  after(() => env?.close());

  const exchange = (client: oauth.Client, auth: oauth.ClientAuth, params: URLSearchParams, redirectUri: string, verifier: string) =>
    oauth.authorizationCodeGrantRequest(env.as, client, auth, params, redirectUri, verifier, insecure).then((r) => oauth.processAuthorizationCodeResponse(env.as, client, r));
  const webAuth = () => oauth.ClientSecretBasic(env.webSecret);
  const bearer = (token: string, method = 'GET', body?: string) => fetch(env.base + '/articles', {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body,
  });

  /** A whole approval for `web`: the callback parameters (checked by oauth4webapi) and the verifier. */
  async function webCode(extra: Record<string, string | undefined> = {}) {
    const { url, verifier, state } = await pkceRequest(env, 'web', WEB_REDIRECT, extra);
    const callback = await approve(env, url);
    const params = oauth.validateAuthResponse(env.as, env.web, callback, state);
    return { params, verifier, callback };
  }

  it('publishes the authorization endpoint, S256 and the iss parameter in its metadata (RFC 8414, RFC 9207)', () => {
    assert.equal(env.as.authorization_endpoint, env.base + '/oauth/authorize');
    assert.deepEqual(env.as.response_types_supported, ['code']);
    assert.deepEqual(env.as.code_challenge_methods_supported, ['S256']);
    assert.equal(env.as.authorization_response_iss_parameter_supported, true);
    assert.ok(env.as.grant_types_supported?.includes('authorization_code'));
    assert.ok(env.as.token_endpoint_auth_methods_supported?.includes('none'));
  });

  it('signs in, approves and exchanges the code for tokens that work (confidential client)', async () => {
    const { params, verifier, callback } = await webCode();
    assert.equal(callback.origin + callback.pathname, 'http://127.0.0.1/web/cb');
    assert.equal(callback.searchParams.get('app'), '1', 'the redirect URI keeps its own query');
    assert.equal(callback.searchParams.get('iss'), env.as.issuer);
    const tokens = await exchange(env.web, webAuth(), params, WEB_REDIRECT, verifier);
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.scope, 'articles:read articles:write');
    assert.ok(tokens.refresh_token);
    const created = await bearer(tokens.access_token, 'POST', JSON.stringify({ title: 'Code flow', price: { amount: '1.00', currency: 'eur' } }));
    assert.equal(created.status, 201, await created.text());
  });

  it('echoes state exactly, whatever visible characters it holds, and refuses others unechoed', async () => {
    const state = 'a b+c/&=?%25;"<x>~#\\\'';
    const { url } = await pkceRequest(env, 'web', WEB_REDIRECT, { state });
    const callback = await approve(env, url);
    assert.equal(callback.searchParams.get('state'), state);
    assert.equal(callback.searchParams.getAll('state').length, 1);
    const res = await fetch((await pkceRequest(env, 'web', WEB_REDIRECT, { state: 'caf\u00e9\u0001' })).url, { redirect: 'manual' });
    const refused = new URL(res.headers.get('location')!);
    assert.equal(refused.searchParams.get('error'), 'invalid_request');
    assert.equal(refused.searchParams.has('state'), false);
  });

  it('narrows the scope to what was asked for', async () => {
    const { params, verifier } = await webCode({ scope: 'articles:read' });
    const tokens = await exchange(env.web, webAuth(), params, WEB_REDIRECT, verifier);
    assert.equal(tokens.scope, 'articles:read');
    assert.equal((await bearer(tokens.access_token, 'POST', '{}')).status, 403);
  });

  it('sends access_denied (with state and iss) when the user denies, signed in or not', async () => {
    const { url, state } = await pkceRequest(env, 'web', WEB_REDIRECT);
    const res = await answerPage(env, url, { decision: 'deny' });
    assert.equal(res.status, 303);
    const callback = new URL(res.headers.get('location')!);
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    assert.equal(callback.searchParams.get('state'), state);
    assert.equal(callback.searchParams.get('iss'), env.as.issuer);
    assert.throws(() => oauth.validateAuthResponse(env.as, env.web, callback, state), (e: oauth.AuthorizationResponseError) => e.error === 'access_denied');
  });

  it('shows an error page, never a redirect, for an unknown client or an unregistered redirect URI', async () => {
    const cases: Array<[string, string | undefined]> = [
      ['web', 'https://evil.example/cb'],
      ['web', WEB_REDIRECT + '&x=1'],
      ['web', 'http://127.0.0.1/web/cb'],
      ['web', 'http://127.0.0.1/web/cb/../cb?app=1'],
      ['web', 'http://127.0.0.1.evil.example/web/cb?app=1'],
      ['web', 'http://localhost/web/cb?app=1'],
      ['web', undefined],
      ['nobody', WEB_REDIRECT],
      ['native', 'https://evil.example/cb'],
    ];
    for (const [clientId, redirectUri] of cases) {
      const { url } = await pkceRequest(env, clientId, redirectUri ?? '', { redirect_uri: redirectUri });
      const res = await fetch(url, { redirect: 'manual' });
      assert.equal(res.status, 400, `${clientId} ${redirectUri}`);
      assert.equal(res.headers.get('location'), null, 'no open redirect');
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.ok(!(await res.text()).includes('evil.example'), 'the unregistered URI is not even shown');
    }
  });

  it('redirects invalid_request (with state and iss) for missing or plain PKCE once the redirect URI is known good', async () => {
    for (const extra of [{ code_challenge: undefined, code_challenge_method: undefined }, { code_challenge_method: 'plain' }, { code_challenge_method: undefined }, { code_challenge: 'too-short' }]) {
      const { url, state } = await pkceRequest(env, 'web', WEB_REDIRECT, extra);
      const res = await fetch(url, { redirect: 'manual' });
      assert.equal(res.status, 303, JSON.stringify(extra));
      const callback = new URL(res.headers.get('location')!);
      assert.equal(callback.origin + callback.pathname, 'http://127.0.0.1/web/cb');
      assert.equal(callback.searchParams.get('error'), 'invalid_request', JSON.stringify(extra));
      assert.equal(callback.searchParams.get('state'), state);
      assert.equal(callback.searchParams.get('iss'), env.as.issuer);
    }
    const unsupported = await fetch((await pkceRequest(env, 'web', WEB_REDIRECT, { response_type: 'token' })).url, { redirect: 'manual' });
    assert.equal(new URL(unsupported.headers.get('location')!).searchParams.get('error'), 'unsupported_response_type');
    const scope = await fetch((await pkceRequest(env, 'native', NATIVE_REDIRECT, { scope: 'articles:write' })).url, { redirect: 'manual' });
    assert.equal(new URL(scope.headers.get('location')!).searchParams.get('error'), 'invalid_scope');
  });

  it('refuses a wrong verifier, another redirect URI and another client at the token endpoint (invalid_grant)', async () => {
    const { params, verifier } = await webCode();
    assert.deepEqual(await oauthError(exchange(env.web, webAuth(), params, WEB_REDIRECT, oauth.generateRandomCodeVerifier())), { error: 'invalid_grant', status: 400 });
    assert.deepEqual(await oauthError(exchange(env.web, webAuth(), params, 'http://127.0.0.1/web/cb', verifier)), { error: 'invalid_grant', status: 400 });
    assert.deepEqual(await oauthError(exchange(env.native, oauth.None(), params, WEB_REDIRECT, verifier)), { error: 'invalid_grant', status: 400 });
    // None of them spent the code: the client it was issued to still gets its tokens.
    assert.ok((await exchange(env.web, webAuth(), params, WEB_REDIRECT, verifier)).access_token);
  });

  it('answers invalid_request for a missing or malformed verifier, and invalid_client for a confidential client without its secret', async () => {
    const { params } = await webCode();
    const post = (body: string, headers: Record<string, string> = {}) => fetch(env.base + '/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
    const basic = { authorization: 'Basic ' + Buffer.from(`web:${env.webSecret}`).toString('base64') };
    const code = params.get('code')!;
    for (const body of [`grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(WEB_REDIRECT)}`, `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(WEB_REDIRECT)}&code_verifier=short`]) {
      const r = await post(body, basic);
      assert.equal(r.status, 400);
      assert.equal(((await r.json()) as { error: string }).error, 'invalid_request');
    }
    const r = await post(`grant_type=authorization_code&client_id=web&code=${code}&redirect_uri=${encodeURIComponent(WEB_REDIRECT)}&code_verifier=${'a'.repeat(43)}`);
    assert.equal(r.status, 400);
    assert.equal(((await r.json()) as { error: string }).error, 'invalid_client');
  });

  it('takes a code once; a second exchange fails and revokes the tokens the first issued', async () => {
    const { params, verifier } = await webCode();
    const tokens = await exchange(env.web, webAuth(), params, WEB_REDIRECT, verifier);
    assert.equal((await bearer(tokens.access_token)).status, 200);
    assert.deepEqual(await oauthError(exchange(env.web, webAuth(), params, WEB_REDIRECT, verifier)), { error: 'invalid_grant', status: 400 });
    assert.equal((await bearer(tokens.access_token)).status, 401, 'the access token is revoked');
    const refresh = oauth.refreshTokenGrantRequest(env.as, env.web, webAuth(), tokens.refresh_token!, insecure).then((r) => oauth.processRefreshTokenResponse(env.as, env.web, r));
    assert.deepEqual(await oauthError(refresh), { error: 'invalid_grant', status: 400 }, 'and so is the refresh token');
  });

  it('refuses an expired code (10 minutes, on the injected clock)', async () => {
    const { params, verifier } = await webCode();
    env.clock.now += 10 * 60_000 + 1;
    try {
      assert.deepEqual(await oauthError(exchange(env.web, webAuth(), params, WEB_REDIRECT, verifier)), { error: 'invalid_grant', status: 400 });
    } finally {
      env.clock.now = Date.now();
    }
  });

  it('runs the flow for a public client (client_id alone, any loopback port) and rotates its refresh tokens with reuse detection', async () => {
    const redirectUri = 'http://127.0.0.1:49152/native/cb';
    const { url, verifier, state } = await pkceRequest(env, 'native', redirectUri);
    const callback = await approve(env, url);
    assert.equal(callback.host, '127.0.0.1:49152');
    const params = oauth.validateAuthResponse(env.as, env.native, callback, state);
    const first = await oauth.authorizationCodeGrantRequest(env.as, env.native, oauth.None(), params, redirectUri, verifier, insecure).then((r) => oauth.processAuthorizationCodeResponse(env.as, env.native, r));
    assert.equal(first.scope, 'articles:read');
    const refresh = (token: string) => oauth.refreshTokenGrantRequest(env.as, env.native, oauth.None(), token, insecure).then((r) => oauth.processRefreshTokenResponse(env.as, env.native, r));
    const second = await refresh(first.refresh_token!);
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.deepEqual(await oauthError(refresh(first.refresh_token!)), { error: 'invalid_grant', status: 400 });
    assert.deepEqual(await oauthError(refresh(second.refresh_token!)), { error: 'invalid_grant', status: 400 }, 'reuse revoked the family');
    assert.equal((await bearer(second.access_token)).status, 401);
  });

  it('keeps public clients off the grants that rest on a secret', async () => {
    const r = await fetch(env.base + '/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=native' });
    assert.equal(r.status, 400);
    assert.equal(((await r.json()) as { error: string }).error, 'unauthorized_client');
    const secret = await fetch(env.base + '/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=native&client_secret=' });
    assert.equal(((await secret.json()) as { error: string }).error, 'invalid_client');
  });

  it('answers OPTIONS with Allow and other methods with 405', async () => {
    const options = await fetch(env.base + '/oauth/authorize', { method: 'OPTIONS' });
    assert.equal(options.status, 204);
    assert.equal(options.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
    const put = await fetch(env.base + '/oauth/authorize', { method: 'PUT' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
  });

  it('shows the page with no framing, no referrer, no caching and escaped values', async () => {
    const { url } = await pkceRequest(env, 'web', WEB_REDIRECT, { state: '<script>x</script>' });
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
    assert.match(res.headers.get('content-security-policy')!, /form-action 'self' http:\/\/127\.0\.0\.1/);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const html = await res.text();
    assert.ok(!html.includes('<script>'));
    assert.match(html, /articles:read/);
    assert.ok(authorizeUrl(env, {}).length > 0);
  });
});
