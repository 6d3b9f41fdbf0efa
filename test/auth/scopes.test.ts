/** @module test/auth/scopes */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseScope, requireScope } from '../../src/auth/scopes.js';
import { FailureThrottle } from '../../src/auth/throttle.js';
import type { HttpError } from '../../src/errors/http-error.js';

describe('requireScope', () => {
  it('lets unrestricted callers and callers with the scope through', () => {
    requireScope({ name: 'a', role: 'editor', scopes: null, scheme: 'basic' }, 'articles:write');
    requireScope({ name: 'a', role: 'editor', scopes: ['articles:write'], scheme: 'bearer' }, 'articles:write');
  });
  it('throws 403 insufficient_scope naming the scope', () => {
    assert.throws(
      () => requireScope({ name: 'a', role: 'editor', scopes: ['articles:read'], scheme: 'bearer' }, 'articles:write'),
      (e: HttpError) =>
        e.status === 403 && e.headers['WWW-Authenticate'] === 'Bearer realm="roa", error="insufficient_scope", scope="articles:write"',
    );
  });
});

describe('parseScope', () => {
  it('splits on single spaces and rejects bad tokens', () => {
    assert.deepEqual(parseScope('a b a'), ['a', 'b']);
    assert.equal(parseScope(''), undefined);
    assert.equal(parseScope('a  b'), undefined);
    assert.equal(parseScope('a"b'), undefined);
  });
});

describe('FailureThrottle', () => {
  it('blocks after the limit within the window and frees up as it slides', () => {
    let now = 0;
    const t = new FailureThrottle({ limit: 2, windowMs: 1000, now: () => now });
    t.fail('k');
    now = 500;
    t.fail('k');
    assert.equal(t.retryAfter('k'), 1);
    assert.equal(t.retryAfter('other'), 0);
    now = 1001;
    assert.equal(t.retryAfter('k'), 0);
  });
  it('forgets on reset and bounds the number of keys', () => {
    const t = new FailureThrottle({ limit: 1, maxKeys: 2 });
    t.fail('a');
    t.fail('b');
    t.fail('c');
    assert.equal(t.retryAfter('a'), 0, 'oldest key evicted');
    t.reset('c');
    assert.equal(t.retryAfter('c'), 0);
  });
});
