/** @module test/auth/hmac-header The hand-written `Authentication: hmac` parser against its regular-expression definition. */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { parseHmacHeader } from '../../src/auth/hmac-header.js';
import { HttpError } from '../../src/errors/http-error.js';

// The grammar as regular expressions: the reference the scanner must agree with.
const HEADER_RE = /^hmac +(\S+)$/i;
const USER_RE = /^[\x21-\x39\x3b-\x7e]{1,256}$/;
const DIGEST_RE = /^[A-Za-z0-9+/]{1,128}={0,2}$/;
const NONCE_RE = /^[A-Za-z0-9_-]{16,128}$/;

type Outcome = { user: string; nonce: string | undefined; digest: string } | 400 | 401;

function reference(header: string): Outcome {
  const m = HEADER_RE.exec(header);
  if (m === null) return 400;
  const parts = m[1]!.split(':');
  if (parts.length !== 2 && parts.length !== 3) return 400;
  const user = parts[0]!;
  const digest = parts[parts.length - 1]!;
  if (!USER_RE.test(user) || !DIGEST_RE.test(digest)) return 400;
  const nonce = parts.length === 3 ? parts[1]! : undefined;
  if (nonce !== undefined && !NONCE_RE.test(nonce)) return 401;
  return { user, nonce, digest };
}

function actual(header: string): Outcome {
  try {
    return { ...parseHmacHeader(header, 'hmac realm="roa"') };
  } catch (err) {
    assert.ok(err instanceof HttpError, String(err));
    assert.ok(err.status === 400 || err.status === 401, `status ${err.status}`);
    return err.status as 400 | 401;
  }
}

const PIECES = ['hmac', 'HMAC', 'Hmac', ' ', '  ', '\t', ':', '::', 'ann', 'bob.smith@example', 'é', '=', '==', '===', '+/', 'abcDEF0123456789', 'x'.repeat(130), 'nonce-nonce_NONCE-1', 'q'.repeat(20), '\u0000', '\x7f', '~', 'hmac:', '"', '\u00a0', 'ÿ'];

describe('parseHmacHeader', () => {
  it('accepts both forms and returns their parts', () => {
    assert.deepEqual(parseHmacHeader('hmac ann:abc+/==', ''), { user: 'ann', nonce: undefined, digest: 'abc+/==' });
    assert.deepEqual(parseHmacHeader('HMAC   ann:nonce-0123456789abcdef:abc', ''), { user: 'ann', nonce: 'nonce-0123456789abcdef', digest: 'abc' });
  });

  it('agrees with the grammar on hand-picked edge cases', () => {
    for (const h of ['hmac', 'hmac ', 'hmac  ', 'hmacann:abc', 'hmac\tann:abc', 'hmac ann:abc ', 'hmac :abc', 'hmac ann:', 'hmac ann:a===', 'hmac ann:' + 'A'.repeat(128) + '==', 'hmac ann:' + 'A'.repeat(129),
      'hmac ' + 'u'.repeat(256) + ':abc', 'hmac ' + 'u'.repeat(257) + ':abc', 'hmac ann:short:abc', 'hmac ann:' + 'n'.repeat(16) + ':abc', 'hmac ann:' + 'n'.repeat(129) + ':abc', 'hmac a:b:c:d', 'hmac ann:ab=c', 'xhmac ann:abc', 'hmac ännn:abc',
      'hmac ann:' + 'n'.repeat(16) + '=:abc', 'hmac ann:=' + 'n'.repeat(16) + ':abc', 'hmac ann:ab==c', 'hmac a=n:abc==', 'hmac ann:==', 'hmac ann:=', 'hmac ann:' + 'n'.repeat(16) + ':ab=', 'hmac ann:' + 'n'.repeat(16) + ':ab=c=',
      // Outside visible ASCII: a bad nonce (401) inside the nonce, a malformed header (400) anywhere else or when it is whitespace.
      'hmac ann:é:abc', 'hmac ann:' + 'n'.repeat(15) + 'é:abc', 'hmac ann:\u0000' + 'n'.repeat(16) + ':abc', 'hmac ann:' + 'n'.repeat(16) + '\x7f:abc',
      'hmac ann:' + 'n'.repeat(8) + '\u00a0' + 'n'.repeat(8) + ':abc', 'hmac ann:' + 'n'.repeat(8) + ' ' + 'n'.repeat(8) + ':abc', 'hmac ann:' + 'n'.repeat(16) + ':abcé', 'hmac é:' + 'n'.repeat(16) + ':abc',
      'hmac ann:é:ab=c']) {
      assert.deepEqual(actual(h), reference(h), JSON.stringify(h));
    }
  });

  it('agrees with the grammar on 20,000 generated headers', () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    for (let i = 0; i < 20_000; i++) {
      let h = random(4) === 0 ? '' : ['hmac ', 'HMAC  ', 'hmac'][random(3)]!;
      const n = 1 + random(6);
      for (let j = 0; j < n; j++) h += PIECES[random(PIECES.length)]!;
      assert.deepEqual(actual(h), reference(h), JSON.stringify(h));
    }
  });
});
