/** @module test/storage/nonce-fingerprints The typed-array index of live nonces: exact answers, expiry, limit, growth. */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { NonceFingerprints } from '../../src/storage/sqlite/nonce-fingerprints.js';

const T0 = 1_800_000_000_000;
const MIN = 60_000;

describe('NonceFingerprints', () => {
  it('finds a recorded key until its expiry, and only that key', () => {
    const index = new NonceFingerprints(100);
    assert.equal(index.has('hmac:ann:aaaaaaaaaaaaaaaa', T0), false);
    assert.equal(index.addLast(T0 + MIN, T0), true);
    assert.equal(index.has('hmac:ann:aaaaaaaaaaaaaaaa', T0), true);
    assert.equal(index.has('hmac:ann:aaaaaaaaaaaaaaab', T0), false, 'a key one character apart');
    assert.equal(index.has('hmac:bob:aaaaaaaaaaaaaaaa', T0), false, 'the same nonce of another user');
    // At its expiry a record no longer counts; a millisecond before, it still does.
    assert.equal(index.has('hmac:ann:aaaaaaaaaaaaaaaa', T0 + MIN - 1), true);
    assert.equal(index.has('hmac:ann:aaaaaaaaaaaaaaaa', T0 + MIN), false);
  });

  it('keeps the later expiry when a live key is remembered again', () => {
    const index = new NonceFingerprints(100);
    assert.equal(index.remember('k', T0 + 2 * MIN, T0), true);
    assert.equal(index.remember('k', T0 + MIN, T0), true);
    assert.equal(index.has('k', T0 + MIN + 1), true, 'the shorter expiry did not replace the longer one');
    assert.equal(index.remember('k', T0 + 3 * MIN, T0), true);
    assert.equal(index.has('k', T0 + 2 * MIN + 1), true, 'the longer expiry replaced the shorter one');
    assert.equal(index.liveCount(T0), 1);
  });

  it('forgets a key (a rolled-back batch) without losing the keys around it', () => {
    const index = new NonceFingerprints(1000);
    for (let i = 0; i < 500; i++) assert.equal(index.remember(`key-${i}`, T0 + MIN, T0), true);
    index.forget('key-250', T0);
    assert.equal(index.has('key-250', T0), false);
    for (let i = 0; i < 500; i++) if (i !== 250) assert.equal(index.has(`key-${i}`, T0), true, `key-${i}`);
    assert.equal(index.liveCount(T0), 499);
  });

  it('refuses past its limit while the held keys live, and takes keys again once they expire', () => {
    const index = new NonceFingerprints(3);
    for (const k of ['a', 'b', 'c']) assert.equal(index.remember(k, T0 + MIN, T0), true);
    assert.equal(index.remember('d', T0 + MIN, T0), false);
    assert.equal(index.remember('e', T0 + MIN, T0 + 5), false, 'still full a moment later');
    assert.equal(index.has('d', T0), false);
    // Past the first three's expiry there is room again, and they are gone.
    assert.equal(index.remember('d', T0 + 3 * MIN, T0 + 2 * MIN), true);
    assert.equal(index.has('a', T0 + 2 * MIN), false);
    assert.equal(index.liveCount(T0 + 2 * MIN), 1);
  });

  it('grows past its first arrays and answers exactly for 200 000 keys, with no stranger taken for one of them', () => {
    const index = new NonceFingerprints(1_000_000);
    const n = 200_000;
    for (let i = 0; i < n; i++) assert.equal(index.remember(`hmac:editor:${i.toString(36).padStart(22, '_')}`, T0 + MIN + i, T0), true);
    assert.equal(index.liveCount(T0), n);
    let found = 0;
    let strangers = 0;
    for (let i = 0; i < n; i++) {
      if (index.has(`hmac:editor:${i.toString(36).padStart(22, '_')}`, T0)) found++;
      if (index.has(`hmac:editor:${i.toString(36).padStart(22, '-')}`, T0)) strangers++;
    }
    assert.equal(found, n);
    assert.equal(strangers, 0);
    // Half of them expire (key i at T0 + MIN + i); the rest are still found after the rebuilds more keys set off.
    const later = T0 + MIN + n / 2;
    for (let i = 0; i < n; i++) index.remember(`more-${i}`, T0 + 10 * MIN, later);
    assert.equal(index.liveCount(later), n / 2 - 1 + n);
    assert.equal(index.has(`hmac:editor:${(n / 2).toString(36).padStart(22, '_')}`, later), false, 'expired at `later` itself');
    for (let i = n / 2 + 1; i < n; i++) assert.equal(index.has(`hmac:editor:${i.toString(36).padStart(22, '_')}`, later), true);
    assert.equal(index.has(`hmac:editor:${(0).toString(36).padStart(22, '_')}`, later), false);
  });

  it('refuses a key whose probe sequence is full (the caller then uses its exact table), and still finds the others', () => {
    const index = new NonceFingerprints(1_000_000);
    // Keys that all start probing at slot 0 of the first 1024 slots, found by trying (1 in 1024).
    const homeOf = (key: string) => (index.has(key, T0), (Reflect.get(index, 'a') as number) & 1023);
    const crowd: string[] = [];
    for (let i = 0; crowd.length < 65; i++) if (homeOf(`crowd-${i}`) === 0) crowd.push(`crowd-${i}`);
    const placed = crowd.map((k) => index.remember(k, T0 + MIN, T0));
    assert.deepEqual(placed, [...Array<boolean>(64).fill(true), false], 'the 65th would need a 65th probe');
    for (const k of crowd.slice(0, 64)) assert.equal(index.has(k, T0), true, k);
    assert.equal(index.has(crowd[64]!, T0), false);
    // Once the crowd expires, its slots are reused.
    assert.equal(index.remember(crowd[64]!, T0 + 2 * MIN, T0 + MIN), true);
  });

  it('keys two indexes differently (random seeds), with the same answers', () => {
    const one = new NonceFingerprints(10);
    const two = new NonceFingerprints(10);
    one.remember('same', T0 + MIN, T0);
    two.remember('same', T0 + MIN, T0);
    assert.equal(one.has('same', T0) && two.has('same', T0), true);
    assert.notDeepEqual(
      [Reflect.get(one, 'seedA'), Reflect.get(one, 'seedB')],
      [Reflect.get(two, 'seedA'), Reflect.get(two, 'seedB')],
    );
  });

  it('fingerprints alike under one seed, so a fingerprint from elsewhere finds the key', () => {
    const seed = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
    const writer = new NonceFingerprints(100, seed);
    writer.has('hmac:ann:bbbbbbbbbbbbbbbb', T0);
    const [a, b] = [writer.lastA, writer.lastB];
    const reader = new NonceFingerprints(100, seed);
    assert.equal(reader.rememberFingerprint(a, b, T0 + MIN, T0), true);
    assert.equal(reader.has('hmac:ann:bbbbbbbbbbbbbbbb', T0), true);
    assert.equal(reader.has('hmac:ann:bbbbbbbbbbbbbbbc', T0), false);
    // A later expiry extends it, an earlier one does not shorten it.
    reader.rememberFingerprint(a, b, T0 + 2 * MIN, T0);
    reader.rememberFingerprint(a, b, T0 + 1, T0);
    assert.equal(reader.has('hmac:ann:bbbbbbbbbbbbbbbb', T0 + 2 * MIN - 1), true);
    assert.equal(reader.liveCount(T0), 1);
    // Another seed fingerprints the key differently.
    const stranger = new NonceFingerprints(100, Uint8Array.from([8, 7, 6, 5, 4, 3, 2, 1]));
    stranger.has('hmac:ann:bbbbbbbbbbbbbbbb', T0);
    assert.notDeepEqual([stranger.lastA, stranger.lastB], [a, b]);
    assert.throws(() => new NonceFingerprints(100, new Uint8Array(4)), RangeError);
  });
});
