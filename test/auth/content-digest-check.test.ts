/** @module test/auth/content-digest-check */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from '../helpers/node-test.js';
import { checkContentDigest, parseContentDigest } from '../../src/auth/content-digest-check.js';
import { HttpError } from '../../src/errors/http-error.js';

const body = Buffer.from('{"hello": "world"}');
const sha256 = `:${createHash('sha256').update(body).digest('base64')}:`;

const status = (fn: () => unknown): number | 'ok' => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    assert.ok(err instanceof HttpError);
    return err.status;
  }
};

describe('parseContentDigest', () => {
  it('reads the supported members and ignores unknown algorithms', () => {
    const parsed = parseContentDigest(`md5=:AAAA:, sha-256=${sha256}`);
    assert.deepEqual(parsed.map((d) => d.algorithm), ['sha-256']);
    checkContentDigest(parsed, body);
  });
  it('allows and ignores member parameters (RFC 8941 §3.1.2)', () => {
    for (const field of [`sha-256=${sha256};foo=1`, `sha-256=${sha256};a;b=?0`, `sha-256=${sha256}; note="x y"`, `sha-256=${sha256};t=tok`]) {
      const parsed = parseContentDigest(field);
      assert.equal(parsed.length, 1, field);
      checkContentDigest(parsed, body);
    }
  });
  it('answers 400 for malformed values, unsupported-only fields and a mismatch', () => {
    for (const field of ['sha-256=abc', 'sha-256=:AAAA', `sha-256=${sha256};`, `sha-256=${sha256};Foo=1`, `sha-256=${sha256};x="unterminated`, 'SHA-256=:AAAA:']) {
      assert.equal(status(() => parseContentDigest(field)), 400, field);
    }
    assert.equal(status(() => parseContentDigest('md5=:AAAA:')), 400);
    assert.equal(status(() => checkContentDigest(parseContentDigest('sha-256=:AAAA:'), body)), 400);
  });
});
