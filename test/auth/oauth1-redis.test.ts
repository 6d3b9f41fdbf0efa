/** @module test/auth/oauth1-redis — OAuth 1 nonces in Redis are shared by instances: a request accepted by one is a replay at the other. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { describe } from '../helpers/node-test.js';
import { createRedisNonceStore } from '../../src/auth/redis-nonce-store.js';
import { dropRedisPrefix, redisReachable, skipReason, suiteNeeding, TEST_REDIS_URL } from '../helpers/services.js';
import { authorizationOf, send, signParams, startHarness, type Harness } from './oauth1-harness.js';

const redisSkip = skipReason(await redisReachable(), `Redis not reachable at ${TEST_REDIS_URL}`);

describe('OAuth1Scheme on two instances sharing Redis nonces', () => {
  const { it, before, after } = suiteNeeding(redisSkip);
  const prefix = `roa:test:oauth1:${randomBytes(4).toString('hex')}:`;
  const stores = [createRedisNonceStore(TEST_REDIS_URL, { prefix }), createRedisNonceStore(TEST_REDIS_URL, { prefix })];
  const instances: Harness[] = [];
  before(async () => {
    for (const nonces of stores) {
      const h = await startHarness({ nonces });
      await h.users.createUser({ name: 'ann', role: 'editor', passwordHash: 'x' });
      h.credentials.consumers.set('c', { key: 'c', secret: 'cs', rsaPublicKey: undefined, callbacks: [] });
      h.credentials.accessTokens.set('t', { secret: 'ts', consumerKey: 'c', userName: 'ann' });
      instances.push(h);
    }
  });
  after(async () => {
    for (const h of instances) await h.close();
    for (const s of stores) await s.close?.();
    const admin = createClient({ url: TEST_REDIS_URL });
    admin.on('error', () => {});
    await dropRedisPrefix(admin, prefix);
  });

  it('refuses at the second instance a request the first accepted', async () => {
    const [a, b] = instances as [Harness, Harness];
    // Both instances see the same Host, as behind one load balancer.
    const params = signParams({ method: 'GET', url: 'http://api.example/articles', consumerKey: 'c', consumerSecret: 'cs', token: 't', tokenSecret: 'ts', timestamp: Math.floor(a.clock.now / 1000), nonce: 'once' });
    const headers = { host: 'api.example', authorization: authorizationOf(params) };
    assert.equal((await send(a, 'GET', '/articles', headers)).status, 200);
    const replay = await send(b, 'GET', '/articles', headers);
    assert.equal(replay.status, 401);
    assert.equal(replay.json().oauthProblem, 'nonce_used');
  });
});
