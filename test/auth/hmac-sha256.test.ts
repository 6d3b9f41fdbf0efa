import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { hmacSha256Base64, prepareHmacKey } from '../../src/auth/hmac-sha256.js';

describe('hmacSha256Base64', () => {
  it('equals createHmac for keys shorter than, equal to and longer than a block (RFC 2104)', () => {
    for (const len of [0, 1, 16, 43, 63, 64, 65, 200]) {
      const key = randomBytes(len).toString('base64url');
      for (const message of ['', 'GET+/article/1', 'PUT+/articles/x?a=%20b+SunNov...+nonce-nonce-nonce', 'ünïcødé ✓']) {
        assert.equal(hmacSha256Base64(prepareHmacKey(key), message), createHmac('sha256', key).update(message, 'utf8').digest('base64'), `key length ${len}`);
      }
    }
  });

  it('matches the RFC 4231 test case 2 vector', () => {
    const mac = hmacSha256Base64(prepareHmacKey('Jefe'), 'what do ya want for nothing?');
    assert.equal(Buffer.from(mac, 'base64').toString('hex'), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});
