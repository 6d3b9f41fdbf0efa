/**
 * @module test/auth/oauth-code-service
 * The code flow as deployed: through the embedded caching gateway (the page is never stored, the
 * form's origin is the gateway's public one), and production's https rule for the page.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { describe, it } from '../helpers/node-test.js';
import { send } from '../helpers/service.js';
import { answerPage, approve, flowOf, insecure, oauthError, PASSWORD, pkceRequest, startCodeEnv, WEB_REDIRECT } from './oauth-code-helpers.js';

describe('the code flow through the embedded gateway', () => {
  it('serves the page uncached and takes the form posted from the gateway origin', async () => {
    const env = await startCodeEnv({ gatewayPort: 'ephemeral' });
    try {
      const gateway = env.svc.gatewayBase!;
      const viaGateway = { ...env, base: gateway };
      const { url, state } = await pkceRequest(viaGateway, 'web', WEB_REDIRECT);
      const target = new URL(url).pathname + new URL(url).search;
      for (let i = 0; i < 2; i++) {
        const page = await send(gateway, 'GET', target);
        assert.equal(page.status, 200);
        assert.equal(page.headers['cache-control'], 'no-store');
        assert.notEqual(page.headers['x-cache'], 'HIT', 'the page is never served from the cache');
      }
      const callback = await approve(viaGateway, url);
      assert.equal(callback.searchParams.get('state'), state);
      // The issuer is the origin the browser reached: the gateway's.
      assert.equal(callback.searchParams.get('iss'), gateway);
      // The service's own origin is another origin as seen through the gateway.
      const html = (await send(gateway, 'GET', target)).text;
      const foreign = await send(gateway, 'POST', target, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: env.svc.base },
        body: `decision=deny&flow=${flowOf(html)}`,
      });
      assert.equal(foreign.status, 403);
    } finally {
      await env.close();
    }
  });
});

describe('the code flow in production', () => {
  it('asks for https: the page and its form over plain HTTP are refused (403), over a TLS proxy they work', async () => {
    const env = await startCodeEnv({ env: 'production' });
    try {
      const { url } = await pkceRequest(env, 'web', WEB_REDIRECT);
      const target = new URL(url).pathname + new URL(url).search;
      const plain = await send(env.base, 'GET', target);
      assert.equal(plain.status, 403);
      assert.match(plain.text, /https/);
      const post = await send(env.base, 'POST', target, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=deny' });
      assert.equal(post.status, 403);
      const secure = await send(env.base, 'GET', target, { headers: { 'x-forwarded-proto': 'https' } });
      assert.equal(secure.status, 200);
      assert.equal(secure.headers['strict-transport-security'], 'max-age=31536000');
    } finally {
      await env.close();
    }
  });
});

describe('sign-ins on the page and Basic share one throttle', () => {
  it('locks Basic at this address after ten wrong passwords on the page, and the page after Basic', async () => {
    const env = await startCodeEnv();
    try {
      const { url } = await pkceRequest(env, 'web', WEB_REDIRECT);
      for (let i = 0; i < 10; i++) {
        const wrong = await answerPage(env, url, { username: 'ann', password: `wrong-${i}`, decision: 'approve' });
        assert.equal(wrong.status, 403);
      }
      const basic = await send(env.base, 'GET', '/articles', { headers: { authorization: 'Basic ' + Buffer.from(`ann:${PASSWORD}`).toString('base64') } });
      assert.equal(basic.status, 429, 'the right password over Basic, once the page used up the attempts');
      const page = await answerPage(env, url, { username: 'ann', password: PASSWORD, decision: 'approve' });
      assert.equal(page.status, 429);
      assert.ok(Number(page.headers.get('retry-after')) > 0);
      assert.match(await page.text(), /Too many attempts/);
      assert.equal(env.codeRows(), 0);
    } finally {
      await env.close();
    }
  });
});

describe('the code flow with JWT access tokens', () => {
  it('issues a JWT, and a replayed code revokes it at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roa-code-jwt-'));
    const env = await startCodeEnv({ tokenFormat: 'jwt', jwtKeyFile: join(dir, 'jwt.json') });
    try {
      const { url, verifier, state } = await pkceRequest(env, 'web', WEB_REDIRECT);
      const params = oauth.validateAuthResponse(env.as, env.web, await approve(env, url), state);
      const exchange = () => oauth.authorizationCodeGrantRequest(env.as, env.web, oauth.ClientSecretBasic(env.webSecret), params, WEB_REDIRECT, verifier, insecure)
        .then((r) => oauth.processAuthorizationCodeResponse(env.as, env.web, r));
      const tokens = await exchange();
      assert.equal(tokens.access_token.split('.').length, 3, 'a JWT');
      const read = () => fetch(env.base + '/articles', { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal((await read()).status, 200);
      assert.deepEqual(await oauthError(exchange()), { error: 'invalid_grant', status: 400 });
      assert.equal((await read()).status, 401);
    } finally {
      await env.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
