/**
 * @module test/auth/throttle
 * The failed-login throttle's behaviour, one suite for both kinds: in memory, and in a real Redis
 * (skipped, or failed under CI, when none is reachable).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from '../helpers/node-test.js';
import { createClient } from 'redis';
import { RedisFailureThrottle } from '../../src/auth/redis-throttle.js';
import { REDIS_CLIENT_KINDS } from '../../src/redis/redis-client.js';
import { FailureThrottle, type AttemptThrottle, type ThrottleOptions } from '../../src/auth/throttle.js';
import { sourceKey } from '../../src/auth/source-address.js';
import { dropRedisPrefix, redisReachable, skipReason, suiteNeeding, TEST_REDIS_URL } from '../helpers/services.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function throttleCases(kind: string, make: (options: ThrottleOptions) => AttemptThrottle, skip: string | false = false): void {
  describe(`${kind} failure throttle`, () => {
    const { it, after } = suiteNeeding(skip);
    const made: AttemptThrottle[] = [];
    const throttle = (options: ThrottleOptions): AttemptThrottle => {
      const t = make(options);
      made.push(t);
      return t;
    };
    after(async () => {
      for (const t of made) await t.close?.();
    });
    // Each case its own subjects and addresses, so cases sharing a Redis prefix never meet.
    const subject = () => `user:${randomBytes(4).toString('hex')}`;
    const address = () => `192.0.2.${randomBytes(1)[0]}-${randomBytes(4).toString('hex')}`;

    it('lets exactly `limit` of many concurrent attempts be checked', async () => {
      const t = throttle({ limit: 3 });
      const s = subject();
      const here = address();
      const waits = await Promise.all(Array.from({ length: 50 }, () => t.attempt(s, here)));
      assert.equal(waits.filter((w) => w === 0).length, 3);
      assert.ok(waits.every((w) => w === 0 || (w > 0 && w <= 60)));
    });

    it('counts per source: a locked credential at one address is free at another', async () => {
      const t = throttle({ limit: 2 });
      const s = subject();
      const [here, there] = [address(), address()];
      for (let i = 0; i < 2; i++) assert.equal(await t.attempt(s, here), 0);
      assert.ok((await t.attempt(s, here)) > 0);
      assert.equal(await t.attempt(s, there), 0);
    });

    it('gives back only the successful attempt, never the failures counted beside it', async () => {
      const t = throttle({ limit: 3 });
      const s = subject();
      const here = address();
      assert.equal(await t.attempt(s, here), 0);
      assert.equal(await t.attempt(s, here), 0);
      assert.equal(await t.attempt(s, here), 0);
      await t.succeeded(s, here);
      assert.equal(await t.attempt(s, here), 0, 'the success gave its own point back');
      assert.ok((await t.attempt(s, here)) > 0, 'the two failures still count');
    });

    it('caps one address across credentials (password spraying)', async () => {
      const t = throttle({ limit: 2, sourceLimit: 3 });
      const users = [subject(), subject(), subject(), subject()];
      const [here, there] = [address(), address()];
      for (const u of users.slice(0, 3)) assert.equal(await t.attempt(u, here), 0);
      assert.ok((await t.attempt(users[3]!, here)) > 0, 'a fourth credential from the same address');
      assert.equal(await t.attempt(users[3]!, there), 0, 'that credential from elsewhere');
    });

    it('locks a credential at one address twice as long each time (exponential backoff)', async () => {
      const t = throttle({ limit: 1, windowMs: 1000 });
      const s = subject();
      const [here, there] = [address(), address()];
      assert.equal(await t.attempt(s, here), 0);
      assert.equal(await t.attempt(s, here), 1, 'the first lock lasts the rest of the window');
      await sleep(1300);
      assert.equal(await t.attempt(s, here), 0);
      assert.equal(await t.attempt(s, here), 2, 'the second lasts two windows');
      assert.ok((await t.attempt(s, here)) > 0);
      assert.equal(await t.attempt(s, there), 0, 'not at another address');
    });

    it('refuses bad settings at construction', () => {
      assert.throws(() => make({ limit: 0 }), RangeError);
      assert.throws(() => make({ windowMs: 300 }), RangeError);
      assert.throws(() => make({ limit: 5, sourceLimit: 4 }), RangeError);
    });
  });
}

throttleCases('in-memory', (o) => new FailureThrottle(o));

const reachable = await redisReachable();
const prefix = `roa-test:${randomBytes(6).toString('hex')}:throttle:`;
const redisSkip = skipReason(reachable, `Redis not reachable at ${TEST_REDIS_URL}`);
for (const client of REDIS_CLIENT_KINDS) throttleCases(`Redis (${client})`, (o) => new RedisFailureThrottle(TEST_REDIS_URL, { prefix, client, ...o }), redisSkip);
if (reachable) {
  after(async () => {
    const admin = createClient({ url: TEST_REDIS_URL });
    admin.on('error', () => {});
    await dropRedisPrefix(admin, prefix);
  });
}

describe('sourceKey', () => {
  it('writes IPv4-mapped IPv6 as IPv4 and counts IPv6 per /64', () => {
    assert.equal(sourceKey('192.0.2.1'), '192.0.2.1');
    assert.equal(sourceKey('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(sourceKey('2001:db8:1:2:3:4:5:6'), '2001:0db8:0001:0002::/64');
    assert.equal(sourceKey('2001:db8:1:2::9'), '2001:0db8:0001:0002::/64');
    assert.equal(sourceKey('2001:db8::1'), '2001:0db8:0000:0000::/64');
    assert.equal(sourceKey('::1'), '0000:0000:0000:0000::/64');
    assert.equal(sourceKey('fe80::1%eth0'), 'fe80:0000:0000:0000::/64');
    assert.equal(sourceKey(undefined), 'unknown');
  });
});
