/** @module test/auth/redis-throttle — the token endpoint's failure throttle shared through a real Redis. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createClient } from 'redis';
import { RedisFailureThrottle } from '../../src/auth/redis-throttle.js';
import { dropRedisPrefix, redisReachable, skipReason, suiteNeeding, TEST_REDIS_URL } from '../helpers/services.js';

const REDIS_URL = TEST_REDIS_URL;


const redisSkip = skipReason(await redisReachable(), `Redis not reachable at ${REDIS_URL}`);

describe('RedisFailureThrottle', () => {
  const { it, after } = suiteNeeding(redisSkip);
  const prefix = `roa-test:${randomBytes(6).toString('hex')}:throttle:`;
  // Two instances of the service, one Redis.
  const a = new RedisFailureThrottle(REDIS_URL, { prefix, limit: 3, windowMs: 60_000 });
  const b = new RedisFailureThrottle(REDIS_URL, { prefix, limit: 3, windowMs: 60_000 });
  const admin = createClient({ url: REDIS_URL });
  admin.on('error', () => {});

  after(async () => {
    await a.close();
    await b.close();
    await dropRedisPrefix(admin, prefix);
  });

  it('counts failures at every instance against one limit, and a reset anywhere clears them', async () => {
    assert.equal(await a.retryAfter('client:x'), 0);
    await a.fail('client:x');
    await b.fail('client:x');
    assert.equal(await a.retryAfter('client:x'), 0, 'two of three');
    await a.fail('client:x');
    const wait = await b.retryAfter('client:x');
    assert.ok(wait > 55 && wait <= 60, `instance b refuses for the rest of the window, got ${wait}`);
    assert.equal(await a.retryAfter('client:y'), 0, 'other keys are not affected');
    await b.reset('client:x');
    assert.equal(await a.retryAfter('client:x'), 0);
  });

  it('keeps only the window: old failures stop counting, and the key expires', async () => {
    const short = new RedisFailureThrottle(REDIS_URL, { prefix, limit: 2, windowMs: 300 });
    try {
      await short.fail('user:w');
      await short.fail('user:w');
      assert.equal(await short.retryAfter('user:w'), 1, 'a wait under a second is rounded up to one');
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(await short.retryAfter('user:w'), 0);
      if (!admin.isOpen) await admin.connect();
      assert.equal(await admin.exists(prefix + 'user:w'), 0, 'the key expired with its window');
    } finally {
      await short.close();
    }
  });

  it('stores at most `limit` entries per key however many failures come', async () => {
    for (let i = 0; i < 10; i++) await a.fail('client:many');
    if (!admin.isOpen) await admin.connect();
    assert.equal(await admin.zCard(prefix + 'client:many'), 3);
    assert.ok((await admin.pTTL(prefix + 'client:many')) > 0);
  });
});

describe('RedisFailureThrottle without Redis', () => {
  it("falls back to the instance's own count: still throttled, never an error", async () => {
    const t = new RedisFailureThrottle('redis://127.0.0.1:1', { limit: 2, windowMs: 60_000, commandTimeoutMs: 200 });
    try {
      await t.fail('client:z');
      await t.fail('client:z');
      assert.ok((await t.retryAfter('client:z')) > 0);
      await t.reset('client:z');
      assert.equal(await t.retryAfter('client:z'), 0);
    } finally {
      await t.close();
    }
  });
});
