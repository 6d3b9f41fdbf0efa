/** @module test/auth/safe-equal */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { safeEqual } from '../../src/auth/safe-equal.js';
import { hashPassword, parsePasswordHash, verifyPassword } from '../../src/auth/passwords.js';

const FAST = { N: 1024, r: 8, p: 1 };

describe('safeEqual', () => {
  it('is true for equal strings and buffers', () => {
    assert.equal(safeEqual('abc', 'abc'), true);
    assert.equal(safeEqual(Buffer.from([1, 2]), new Uint8Array([1, 2])), true);
  });
  it('is false for different content or length without throwing', () => {
    assert.equal(safeEqual('abc', 'abd'), false);
    assert.equal(safeEqual('abc', 'abcd'), false);
    assert.equal(safeEqual('', 'a'), false);
  });
  it('compares strings by content at every position, multi-byte too, and mixes strings with bytes', () => {
    const base = 'q9Xv+/=é€';
    for (let i = 0; i < base.length; i++) {
      const changed = base.slice(0, i) + String.fromCharCode(base.charCodeAt(i) ^ 1) + base.slice(i + 1);
      assert.equal(safeEqual(base, changed), false, `position ${i}`);
    }
    assert.equal(safeEqual(base, base.slice()), true);
    assert.equal(safeEqual('', ''), true);
    assert.equal(safeEqual('é', Buffer.from('é', 'utf8')), true);
    assert.equal(safeEqual('é', Buffer.from('e', 'utf8')), false);
  });
});

describe('passwords', () => {
  it('encodes scrypt$N$r$p$salt$hash with a per-hash random salt', async () => {
    const a = await hashPassword('pw', FAST);
    const b = await hashPassword('pw', FAST);
    assert.match(a, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    assert.notEqual(a, b);
    assert.ok(parsePasswordHash(a));
  });
  it('verifies the right password and rejects a wrong one', async () => {
    const h = await hashPassword('correct horse', FAST);
    assert.equal(await verifyPassword('correct horse', h), true);
    assert.equal(await verifyPassword('correct horsf', h), false);
  });
  it('compares through the injected safeEqual', async () => {
    const h = await hashPassword('pw', FAST);
    const seen: number[] = [];
    const spy = (a: string | Uint8Array, b: string | Uint8Array) => (seen.push(a.length), safeEqual(a, b));
    assert.equal(await verifyPassword('pw', h, spy), true);
    assert.deepEqual(seen, [32]);
  });
  it('treats malformed or abusive stored hashes as non-matching', async () => {
    for (const bad of ['', 'plain', 'scrypt$3$8$1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA', `scrypt$${2 ** 24}$8$1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA`]) {
      assert.equal(parsePasswordHash(bad), undefined);
    }
    assert.equal(await verifyPassword('pw', 'scrypt$3$8$1$x$y'), false);
  });
  it('rejects bad parameters when hashing', async () => {
    await assert.rejects(hashPassword('pw', { N: 1000, r: 8, p: 1 }), RangeError);
  });
});
