/**
 * @module test/service/shared-throttle — two service instances on one database and one Redis: failed
 * client-secret attempts count against one limit, wherever the balancer sends them.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from '../helpers/node-test.js';
import { createClient } from 'redis';
import { generateClientSecret } from '../../src/auth/tokens.js';
import { redisReachable, skipReason, suiteNeeding, TEST_REDIS_URL } from '../helpers/services.js';
import { send, startTestService, type TestService } from '../helpers/service.js';

const REDIS_URL = TEST_REDIS_URL;


const redisSkip = skipReason(await redisReachable(), `Redis not reachable at ${REDIS_URL}`);

describe('OAuth failure throttle across instances (--redis)', () => {
  const { it, before, after } = suiteNeeding(redisSkip);
  const dir = mkdtempSync(join(tmpdir(), 'roa-throttle-'));
  const clientId = `throttled-${randomBytes(6).toString('hex')}`;
  const { clientSecret, secretHash } = generateClientSecret();
  let instances: TestService[] = [];

  before(async () => {
    const db = join(dir, 'roa.db');
    const serverKey = randomBytes(32);
    instances = [await startTestService({ db, redisUrl: REDIS_URL, serverKey }), await startTestService({ db, redisUrl: REDIS_URL, serverKey })];
    await instances[0]!.addUser('tess', 'editor');
    await instances[0]!.running.store.createClient({ clientId, secretHash, userName: 'tess', scopes: ['articles:read'] });
  });
  after(async () => {
    for (const i of instances) await i.close();
    rmSync(dir, { recursive: true, force: true });
    const admin = createClient({ url: REDIS_URL });
    await admin.connect();
    await admin.del(`roa:throttle:client:${clientId}`);
    await admin.close();
  });

  const tokenAt = (i: number, secret: string) => send(instances[i]!.base, 'POST', '/oauth/token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from(`${clientId}:${secret}`).toString('base64') },
    body: 'grant_type=client_credentials',
  });

  it('refuses the right secret at either instance once ten failures were spread over both', async () => {
    for (let n = 0; n < 10; n++) assert.equal((await tokenAt(n % 2, 'wrong-secret')).status, 401);
    for (const i of [0, 1]) {
      const res = await tokenAt(i, clientSecret);
      assert.equal(res.status, 429, `instance ${i}: ${res.text}`);
      assert.ok(Number(res.headers['retry-after']) > 0);
      assert.equal(res.headers['cache-control'], 'no-store');
    }
  });
});
