/**
 * @module test/auth/bounded-memory-limiter
 * The in-memory throttle's key bound (issue 24 item 2: "every limit has a default and a test"): many
 * distinct credential/address pairs do not grow it past `maxKeys`, and flooding it does not clear a
 * lock. Clocks are injected; nothing waits on the wall clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { BoundedRateLimiterMemory, DEFAULT_MAX_KEYS } from '../../src/auth/bounded-memory-limiter.js';
import { LimiterThrottle, memoryLimiters, throttleSettings, type ThrottleOptions } from '../../src/auth/throttle.js';

/** The points a key has consumed, or 0 when it is not held. */
async function consumed(limiter: BoundedRateLimiterMemory, key: string): Promise<number> {
  return (await limiter.get(key))?.consumedPoints ?? 0;
}

/** consume(), resolved with the result whether it was allowed or refused. */
function consume(limiter: BoundedRateLimiterMemory, key: string): Promise<{ allowed: boolean; res: RateLimiterRes }> {
  return limiter.consume(key).then((res) => ({ allowed: true, res }), (res: unknown) => {
    if (!(res instanceof RateLimiterRes)) throw res;
    return { allowed: false, res };
  });
}

describe('BoundedRateLimiterMemory', () => {
  it('never holds more than maxKeys keys, however many distinct keys arrive', async () => {
    const limiter = new BoundedRateLimiterMemory({ points: 3, duration: 60, maxKeys: 100 });
    for (let i = 0; i < 10_000; i++) {
      await consume(limiter, `k${i}`);
      assert.ok(limiter.size <= 100, `size ${limiter.size} after ${i + 1} keys`);
    }
  });

  it('counts and refuses as RateLimiterMemory does while under the bound', async () => {
    let now = 1_000_000;
    const limiter = new BoundedRateLimiterMemory({ points: 2, duration: 60, maxKeys: 10, now: () => now });
    assert.deepEqual([(await consume(limiter, 'a')).allowed, (await consume(limiter, 'a')).allowed, (await consume(limiter, 'a')).allowed], [true, true, false]);
    const refused = (await consume(limiter, 'a')).res;
    assert.equal(refused.consumedPoints, 4);
    assert.equal(refused.msBeforeNext, 60_000);
    now += 30_000;
    assert.equal((await consume(limiter, 'a')).res.msBeforeNext, 30_000);
    now += 30_000;
    assert.equal((await consume(limiter, 'a')).allowed, true, 'a new window');
    await limiter.block('b', 5);
    assert.equal((await consume(limiter, 'b')).allowed, false);
    now += 5_000;
    assert.equal(await limiter.get('b'), null, 'the block ended');
    await limiter.reward('a');
    assert.equal(await consumed(limiter, 'a'), 0);
    assert.equal(await limiter.delete('a'), true);
    assert.equal(limiter.size, 0);
  });

  it('forgets expired keys first', async () => {
    let now = 0;
    const limiter = new BoundedRateLimiterMemory({ points: 5, duration: 60, maxKeys: 10, now: () => now });
    for (let i = 0; i < 5; i++) await limiter.consume(`old${i}`);
    now = 61_000;
    for (let i = 0; i < 5; i++) await limiter.consume(`new${i}`, 2);
    await limiter.consume('one-more');
    assert.equal(limiter.size, 6);
    for (let i = 0; i < 5; i++) assert.equal(await consumed(limiter, `new${i}`), 2);
  });

  it('forgets empty keys before counting ones, and counting ones before locked ones', async () => {
    const limiter = new BoundedRateLimiterMemory({ points: 3, duration: 60, maxKeys: 100 });
    for (let i = 0; i < 4; i++) await consume(limiter, 'locked');
    await limiter.consume('counting', 2);
    // A flood whose attempts are given back (refused by another limit, or succeeded) holds nothing.
    for (let i = 0; i < 10_000; i++) {
      await limiter.consume(`junk${i}`);
      await limiter.reward(`junk${i}`);
    }
    assert.equal(await consumed(limiter, 'counting'), 2, 'a counter is not pushed out by empty keys');
    // A flood of counting keys pushes out the oldest counter, never the lock.
    for (let i = 0; i < 10_000; i++) await limiter.consume(`count${i}`);
    assert.equal(await consumed(limiter, 'counting'), 0);
    assert.equal((await consume(limiter, 'locked')).allowed, false, 'the lock outlived 20,000 other keys');
    assert.ok(limiter.size <= 100);
  });

  it('forgets the oldest lock only when every key is locked', async () => {
    const limiter = new BoundedRateLimiterMemory({ points: 1, duration: 60, maxKeys: 10 });
    for (let i = 0; i < 11; i++) await limiter.block(`lock${i}`, 60);
    assert.equal(limiter.size, 10);
    assert.equal((await consume(limiter, 'lock0')).allowed, true, 'the oldest lock went');
    assert.equal((await consume(limiter, 'lock10')).allowed, false);
  });

  it('refuses a bad bound at construction, and dump/restore it cannot honour', () => {
    assert.throws(() => new BoundedRateLimiterMemory({ points: 1, duration: 1, maxKeys: 0 }), RangeError);
    assert.throws(() => new BoundedRateLimiterMemory({ points: 1, duration: 1, maxKeys: 1.5 }), RangeError);
    assert.throws(() => new BoundedRateLimiterMemory({ points: 1, duration: 1 }).dump());
  });
});

describe('the in-memory failure throttle is bounded', () => {
  const make = (options: ThrottleOptions) => {
    const settings = throttleSettings(options);
    const limiters = memoryLimiters(settings);
    return { throttle: new LimiterThrottle(limiters, settings), limiters };
  };

  it('has a default bound of 100,000 keys per key space', () => {
    assert.equal(DEFAULT_MAX_KEYS, 100_000);
    assert.equal(throttleSettings({}).maxKeys, DEFAULT_MAX_KEYS);
    assert.throws(() => throttleSettings({ maxKeys: 0 }), RangeError);
  });

  it('does not grow past maxKeys with many distinct user/address pairs, and keeps a lock through the flood', async () => {
    const { throttle, limiters } = make({ limit: 3, maxKeys: 500 });
    for (let i = 0; i < 3; i++) assert.equal(await throttle.attempt('user:ann', '203.0.113.66'), 0);
    assert.ok((await throttle.attempt('user:ann', '203.0.113.66')) > 0, 'locked');
    // 20,000 other pairs from 5,000 addresses, each well under its limits.
    for (let i = 0; i < 20_000; i++) await throttle.attempt(`user:u${i}`, `10.${(i >> 10) & 255}.${(i >> 2) & 255}.${i & 3}`);
    // The same address spraying 5,000 user names: the address's cap refuses all but 30 unchecked.
    for (let i = 0; i < 5_000; i++) await throttle.attempt(`user:spray${i}`, '198.51.100.9');
    for (const [name, limiter] of Object.entries(limiters)) assert.ok(limiter.size <= 500, `${name}: ${limiter.size} keys`);
    assert.ok((await throttle.attempt('user:ann', '203.0.113.66')) > 0, 'still locked after the flood');
    assert.equal(await throttle.attempt('user:ann', '192.0.2.1'), 0, 'and only there');
  });
});
