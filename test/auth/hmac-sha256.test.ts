import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from '../helpers/node-test.js';
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

  it('equals createHmac at every message length around the padding boundaries, ASCII and multi-byte', () => {
    const key = prepareHmacKey('k3y-for-lengths');
    // 55/56/63/64 bytes are where the padding needs a second block; 1024+ leaves the ASCII fast path.
    for (const len of [...Array.from({ length: 140 }, (_, i) => i), 1023, 1024, 1025, 5000]) {
      const ascii = 'a1+/?='.repeat(Math.ceil(len / 6) + 1).slice(0, len);
      const wide = 'é€'.repeat(len).slice(0, len);
      for (const message of [ascii, wide]) {
        assert.equal(hmacSha256Base64(key, message), createHmac('sha256', 'k3y-for-lengths').update(message, 'utf8').digest('base64'), `length ${len}`);
      }
    }
  });

  it('equals createHmac over random keys and messages (binary keys too)', () => {
    for (let i = 0; i < 300; i++) {
      const key = randomBytes(i % 130);
      const message = randomBytes(i * 3).toString('latin1');
      assert.equal(hmacSha256Base64(prepareHmacKey(key), message), createHmac('sha256', key).update(message, 'utf8').digest('base64'));
    }
  });

  it('matches the RFC 4231 test case 2 vector', () => {
    const mac = hmacSha256Base64(prepareHmacKey('Jefe'), 'what do ya want for nothing?');
    assert.equal(Buffer.from(mac, 'base64').toString('hex'), '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});
