/**
 * @module test/auth/oauth1-flow-postgres
 * The OAuth 1.0a three-legged flow with the service on PostgreSQL (a schema of its own, dropped
 * afterwards): the npm `oauth` client gets token credentials, writes as the approving user, and a
 * password change revokes them.
 */
import { describe } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { OAuth } from 'oauth';
import pg from 'pg';
import { describeTarget } from '../../src/storage/postgres/postgres-errors.js';
import { pgReachable, skipReason, suiteNeeding, TEST_PG_URL } from '../helpers/services.js';
import { answerApproval, startOAuth1Service, verifierOf, type OAuth1TestService } from './oauth1-flow-helpers.js';

const SCHEMA = `roa_test_oauth1_flow_${randomBytes(5).toString('hex')}`;
const skip = skipReason(await pgReachable(), `PostgreSQL not reachable at ${describeTarget(TEST_PG_URL)} (set ROA_TEST_PG_URL)`);

interface Credentials { token: string; secret: string }

describe('OAuth 1.0a flow on PostgreSQL', () => {
  const { it, before, after } = suiteNeeding(skip);
  let svc: OAuth1TestService;
  let oauth: OAuth;

  before(async () => {
    svc = await startOAuth1Service({ db: TEST_PG_URL, pgSchema: SCHEMA });
    await svc.addUser('ann', 'editor', 'ann-password-1');
    const secret = (await svc.addConsumer('pg-printer'))!;
    oauth = new OAuth(`${svc.base}/oauth1/initiate`, `${svc.base}/oauth1/token`, 'pg-printer', secret, '1.0', 'oob', 'HMAC-SHA256');
  });
  after(async () => {
    await svc?.close();
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await client.end();
  });

  it('issues token credentials once, which write as the user until a password change revokes them', async () => {
    const temporary = await new Promise<Credentials>((resolve, reject) =>
      oauth.getOAuthRequestToken((err, token, secret) => (err ? reject(new Error(JSON.stringify(err))) : resolve({ token, secret }))));
    const verifier = verifierOf(await answerApproval(svc.base, temporary.token, 'ann', 'ann-password-1'));
    const exchange = () => new Promise<Credentials>((resolve, reject) =>
      oauth.getOAuthAccessToken(temporary.token, temporary.secret, verifier, (err, token, secret) => (err ? reject(Object.assign(new Error('refused'), err)) : resolve({ token, secret }))));
    const token = await exchange();
    await assert.rejects(exchange(), (e: { statusCode?: number }) => e.statusCode === 401);
    const put = (slug: string) => new Promise<number>((resolve) => oauth.put(`${svc.base}/articles/${slug}`, token.token, token.secret,
      JSON.stringify({ title: 'Tea', price: { amount: '1.00', currency: 'eur' } }), 'application/json', (err, _d, res) => resolve(err ? err.statusCode : res!.statusCode!)));
    assert.equal(await put('pg-tea'), 201);
    assert.equal((await svc.running.store.getArticleBySlug('pg-tea'))?.owner, 'ann');
    assert.ok((await svc.running.store.revokeUserTokens('ann')) >= 1);
    assert.equal(await put('pg-tea-2'), 401);
  });
});
