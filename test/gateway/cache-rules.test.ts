/**
 * @module test/gateway/cache-rules
 * RFC 9111 rules where the gateway replaces http-cache-semantics or parses for it.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { parseAge, parseCacheControl, parseDeltaSeconds } from '../../src/gateway/cache-control.js';
import { requestDirectives, responsePolicy, reuse, initialAge, type Freshness } from '../../src/gateway/cache-rules.js';
import { parseHttpDate } from '../../src/http/http-date.js';

const NONE = requestDirectives(undefined, undefined);
const now = Math.floor(Date.now() / 1000) * 1000;
const policy = (status: number, headers: Record<string, string>) => responsePolicy('GET', status, headers, NONE, now);
const f = (over: Partial<Freshness>): Freshness => ({
  responseTime: now, initialAge: 0, lifetime: 60, swr: 0, sie: 0, noCache: false, mustRevalidate: false, ...over,
});

describe('cache-control parsing (RFC 9111 §5.2)', () => {
  it('is case-insensitive and ignores directives inside quoted strings', () => {
    const d = parseCacheControl('nO-StOrE, foo="max-age=999, bar", Max-Age=5');
    assert.equal(d.has('no-store'), true);
    assert.equal(d.get('max-age'), '5');
    assert.equal(d.get('foo'), 'max-age=999, bar');
  });

  it('keeps the first of repeated directives (§4.2.1)', () => {
    assert.equal(parseCacheControl('max-age=1, max-age=100').get('max-age'), '1');
  });

  it('reads delta-seconds strictly and clamps to 2^31 (§1.2.2)', () => {
    assert.equal(parseDeltaSeconds('003600'), 3600);
    assert.equal(parseDeltaSeconds('99999999999'), 2147483648);
    for (const bad of ['-1', '1.5', "'60'", '', 'a1']) assert.equal(parseDeltaSeconds(bad), undefined, bad);
  });
});

describe('Age parsing (RFC 9111 §5.1)', () => {
  it('uses the first value and ignores invalid ones', () => {
    assert.equal(parseAge('0, 7200'), 0);
    assert.equal(parseAge('7200, 0'), 7200);
    assert.equal(parseAge('abc'), 0);
    assert.equal(parseAge('-7200'), 0);
    assert.equal(parseAge('7200.0'), 0);
    assert.equal(parseAge('2147483649'), 2147483648);
  });

  it('computes corrected_initial_age from Age, Date and the response delay (§4.2.3)', () => {
    assert.equal(initialAge({ age: '100' }, now - 2000, now), 102);
    assert.equal(initialAge({ date: new Date(now - 50_000).toUTCString() }, now, now), 50);
  });
});

describe('HTTP-date (RFC 9110 §5.6.7)', () => {
  it('accepts the three formats and nothing else', () => {
    const t = Date.UTC(2050, 7, 18, 2, 1, 18);
    assert.equal(parseHttpDate('Thu, 18 Aug 2050 02:01:18 GMT'), t);
    assert.equal(parseHttpDate('Thursday, 18-Aug-50 02:01:18 GMT'), t);
    assert.equal(parseHttpDate('Thu Aug 18 02:01:18 2050'), t);
    for (const bad of ['Thu, 18 Aug 2050 02:01:18 UTC', 'Thu, 18 Aug 2050 2:01:18 GMT', 'Thu 18 Aug 2050 02:01:18 GMT', '0']) {
      assert.equal(parseHttpDate(bad), undefined, bad);
    }
  });
});

describe('responsePolicy', () => {
  it('stores any final status with explicit freshness, not just the library list (RFC 9111 §3)', () => {
    // http-cache-semantics refuses 599 as "not understood"; §3 needs understanding only for 206/304/must-understand.
    assert.equal(policy(599, { 'cache-control': 'max-age=60' }).storable, true);
    assert.equal(policy(599, { 'last-modified': 'Thu, 01 Jan 2015 00:00:00 GMT' }).storable, false);
    assert.equal(policy(206, { 'cache-control': 'max-age=60' }).storable, false);
  });

  it('does not store no-store, private, Vary: *, or an unknown status with must-understand (§5.2.2)', () => {
    assert.equal(policy(200, { 'cache-control': 'no-store, max-age=60' }).storable, false);
    assert.equal(policy(200, { 'cache-control': 'private, max-age=60' }).storable, false);
    assert.equal(policy(200, { 'cache-control': 'max-age=60', vary: 'Foo, *' }).storable, false);
    assert.equal(policy(599, { 'cache-control': 'must-understand, no-store, max-age=60' }).storable, false);
    assert.equal(policy(200, { 'cache-control': 'must-understand, no-store, max-age=60' }).storable, true);
  });

  it('strips fields named by private="…" and stores the rest (§5.2.2.7)', () => {
    const p = policy(200, { 'cache-control': 'private="set-cookie", max-age=60' });
    assert.equal(p.storable, true);
    assert.deepEqual(p.strip, ['set-cookie']);
  });

  it('prefers s-maxage, then max-age, then Expires - Date (§4.2.1); invalid means stale', () => {
    assert.equal(policy(200, { 'cache-control': 'max-age=100, s-maxage=5' }).lifetime, 5);
    const date = 'Thu, 01 Jan 2037 00:00:00 GMT';
    assert.equal(policy(200, { date, expires: 'Thu, 01 Jan 2037 00:01:40 GMT' }).lifetime, 100);
    assert.equal(policy(200, { date, expires: '0' }).lifetime, 0);
    assert.equal(policy(200, { 'cache-control': "max-age='60'" }).lifetime, 0);
  });

  it('applies heuristics only to heuristically cacheable statuses (§4.2.2)', () => {
    const h = { date: 'Thu, 01 Jan 2037 00:00:00 GMT', 'last-modified': 'Wed, 31 Dec 2036 00:00:00 GMT' };
    assert.equal(policy(200, h).lifetime, 8640);
    assert.equal(policy(403, h).lifetime, 0);
  });

  it('uses CDN-Cache-Control over Cache-Control when it is a valid dictionary (RFC 9213 §2.1)', () => {
    assert.equal(policy(200, { 'cdn-cache-control': 'max-age=60', 'cache-control': 'no-store' }).storable, true);
    assert.equal(policy(200, { 'cdn-cache-control': 'max-age="60"', 'cache-control': 'no-store' }).storable, false);
    assert.equal(policy(200, { 'cdn-cache-control': 'max-age=1', 'cache-control': 'max-age=3600' }).lifetime, 1);
  });
});

describe('reuse', () => {
  it('reuses a fresh must-revalidate response without validation (RFC 9111 §5.2.2.2)', () => {
    // http-cache-semantics' evaluateRequest revalidates must-revalidate responses even when fresh.
    assert.equal(reuse(f({ mustRevalidate: true }), NONE, now), 'fresh');
    assert.equal(reuse(f({ mustRevalidate: true, lifetime: 0, swr: 60 }), NONE, now), 'validate');
  });

  it('honours request max-age, min-fresh, max-stale and no-cache (§5.2.1)', () => {
    const aged = f({ initialAge: 30 });
    assert.equal(reuse(aged, requestDirectives('max-age=10', undefined), now), 'validate');
    assert.equal(reuse(aged, requestDirectives('min-fresh=40', undefined), now), 'validate');
    assert.equal(reuse(f({ lifetime: 10, initialAge: 20 }), requestDirectives('max-stale=30', undefined), now), 'stale-ok');
    assert.equal(reuse(aged, requestDirectives('no-cache', undefined), now), 'validate');
    assert.equal(reuse(aged, requestDirectives(undefined, 'no-cache'), now), 'validate');
    assert.equal(reuse(aged, requestDirectives('nothing-to-see-here', 'no-cache'), now), 'fresh', 'Pragma only without Cache-Control (§5.4)');
  });

  it('allows stale-while-revalidate within its window only (RFC 5861 §3)', () => {
    assert.equal(reuse(f({ lifetime: 10, initialAge: 20, swr: 30 }), NONE, now), 'stale-while-revalidate');
    assert.equal(reuse(f({ lifetime: 10, initialAge: 50, swr: 30 }), NONE, now), 'validate');
  });
});
