/** @module test/auth/scopes */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { parseScope, requireScope } from '../../src/auth/scopes.js';
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
