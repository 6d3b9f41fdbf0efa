/**
 * @module test/auth/oauth-code-postgres
 * The authorization code flow with the service on PostgreSQL (a schema of its own): oauth4webapi
 * through approval and exchange, a replayed code revoking its tokens, a public client's refresh
 * rotation. Skips without PostgreSQL on a laptop; fails under CI=true or ROA_REQUIRE_SERVICES=1.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import * as oauth from 'oauth4webapi';
import { describe } from '../helpers/node-test.js';
import { pgReachable, skipReason, suiteNeeding, TEST_PG_URL } from '../helpers/services.js';
import { describeTarget } from '../../src/storage/postgres/postgres-errors.js';
import { approve, insecure, NATIVE_REDIRECT, oauthError, pkceRequest, startCodeEnv, WEB_REDIRECT, type CodeEnv } from './oauth-code-helpers.js';

const SCHEMA = `roa_test_code_${randomBytes(5).toString('hex')}`;
const pgSkip = skipReason(await pgReachable(), `PostgreSQL not reachable at ${describeTarget(TEST_PG_URL)} (set ROA_TEST_PG_URL)`);

describe('the authorization code flow on PostgreSQL', () => {
  const { it, before, after } = suiteNeeding(pgSkip);
  let env: CodeEnv;
  before(async () => {
    env = await startCodeEnv({ db: TEST_PG_URL, pgSchema: SCHEMA });
  });
  after(async () => {
    await env?.close();
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await client.end();
  });

  it('approves, exchanges once, and revokes what a replayed code issued', async () => {
    const { url, verifier, state } = await pkceRequest(env, 'web', WEB_REDIRECT);
    const params = oauth.validateAuthResponse(env.as, env.web, await approve(env, url), state);
    const exchange = () => oauth.authorizationCodeGrantRequest(env.as, env.web, oauth.ClientSecretBasic(env.webSecret), params, WEB_REDIRECT, verifier, insecure)
      .then((r) => oauth.processAuthorizationCodeResponse(env.as, env.web, r));
    const tokens = await exchange();
    const read = () => fetch(env.base + '/articles', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal((await read()).status, 200);
    assert.deepEqual(await oauthError(exchange()), { error: 'invalid_grant', status: 400 });
    assert.equal((await read()).status, 401);
  });

  it("rotates a public client's refresh tokens with reuse detection", async () => {
    const redirectUri = NATIVE_REDIRECT.replace('127.0.0.1/', '127.0.0.1:50000/');
    const { url, verifier, state } = await pkceRequest(env, 'native', redirectUri);
    const params = oauth.validateAuthResponse(env.as, env.native, await approve(env, url), state);
    const first = await oauth.authorizationCodeGrantRequest(env.as, env.native, oauth.None(), params, redirectUri, verifier, insecure)
      .then((r) => oauth.processAuthorizationCodeResponse(env.as, env.native, r));
    const refresh = (t: string) => oauth.refreshTokenGrantRequest(env.as, env.native, oauth.None(), t, insecure).then((r) => oauth.processRefreshTokenResponse(env.as, env.native, r));
    const second = await refresh(first.refresh_token!);
    assert.deepEqual(await oauthError(refresh(first.refresh_token!)), { error: 'invalid_grant', status: 400 });
    assert.deepEqual(await oauthError(refresh(second.refresh_token!)), { error: 'invalid_grant', status: 400 });
  });
});
