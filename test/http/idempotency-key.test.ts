/** @module test/http/idempotency-key The Idempotency-Key header: a structured-field string or a bare token, 1 to 255 characters. */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { HttpError } from '../../src/errors/http-error.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH, parseIdempotencyKey } from '../../src/http/idempotency-key.js';

function isBadKey(err: unknown): boolean {
  return err instanceof HttpError && err.status === 400 && err.code === 'ROA_ERR_BAD_IDEMPOTENCY_KEY';
}

describe('parseIdempotencyKey', () => {
  it('is undefined without the header', () => {
    assert.equal(parseIdempotencyKey(undefined), undefined);
  });

  it('reads a structured-field string, escapes included', () => {
    assert.equal(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"'), '8e03978e-40d5-43e8-bc93-6894a57f9324');
    assert.equal(parseIdempotencyKey('"a \\"b\\" c"'), 'a "b" c');
  });

  it('reads a bare token, a UUID starting with a digit included', () => {
    assert.equal(parseIdempotencyKey('order-42'), 'order-42');
    assert.equal(parseIdempotencyKey('123e4567-e89b-12d3-a456-426614174000'), '123e4567-e89b-12d3-a456-426614174000');
  });

  it(`takes ${MAX_IDEMPOTENCY_KEY_LENGTH} characters and refuses one more`, () => {
    const max = 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH);
    assert.equal(parseIdempotencyKey(max), max);
    assert.equal(parseIdempotencyKey(`"${max}"`), max);
    assert.throws(() => parseIdempotencyKey(max + 'k'), isBadKey);
    assert.throws(() => parseIdempotencyKey(`"${max}k"`), isBadKey);
  });

  it('refuses empty keys, lists, other items, parameters and two header lines', () => {
    for (const bad of ['', '""', '"a", "b"', 'a, b', 'a b', '?1', ':aGk=:', '"a";p=1', '"unterminated', '"tab\there"', 'caf\u00e9', '@at']) {
      assert.throws(() => parseIdempotencyKey(bad), isBadKey, JSON.stringify(bad));
    }
    assert.throws(() => parseIdempotencyKey(['a', 'b']), isBadKey);
  });
});
