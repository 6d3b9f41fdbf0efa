/**
 * @module test/auth/oauth1-hot-path
 * The shortcuts signed-request verification takes give what the plain definitions give: the one-shot
 * HMACs equal node's createHmac, the base string built in one pass equals RFC 5849 §3.4.1.1 spelled
 * out, and prepared keys are never reused across different secrets.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from '../helpers/node-test.js';
import { normalizeParameters, signatureBaseString } from '../../src/auth/oauth1/base-string.js';
import { hmacBase64, prepareHmacKey, type HmacAlgorithm } from '../../src/auth/hmac-one-shot.js';
import { DEFAULT_OAUTH1_LIMITS } from '../../src/auth/oauth1/limits.js';
import { parseOAuthHeader, type OAuth1Param } from '../../src/auth/oauth1/params.js';
import { oauthDecode, oauthEncode } from '../../src/auth/oauth1/percent-encoding.js';
import { checkOAuth1Signature, oauth1Signature } from '../../src/auth/oauth1/signature.js';

const randomText = (length: number, text: string): string => {
  // By code point: a lone surrogate has no UTF-8 form (refused with 400 by design).
  const alphabet = Array.from(text);
  let out = '';
  const bytes = randomBytes(length);
  for (let i = 0; i < length; i++) out += alphabet[bytes[i]! % alphabet.length];
  return out;
};
const TRICKY = 'aZ09-._~ %&=+!*\'()/?#:@,;é€😀';

/** §3.5.1 as regular expressions (the parser's first form): the reference the scanning parser must agree with. */
function referenceParse(value: string): OAuth1Param[] {
  const scheme = /^OAuth(?:[ \t]+|$)/i.exec(value);
  if (scheme === null) throw new Error('not OAuth');
  const pair = /[ \t]*([!#$%&'*+\-.^_`|~0-9A-Za-z]+)[ \t]*=[ \t]*"([^"\\]*)"[ \t]*(?:,|$)/y;
  const empty = /[ \t]*,/y;
  const params: OAuth1Param[] = [];
  const seen = new Set<string>();
  let at = scheme[0].length;
  while (at < value.length) {
    empty.lastIndex = at;
    if (empty.test(value)) {
      at = empty.lastIndex;
      continue;
    }
    pair.lastIndex = at;
    const m = pair.exec(value);
    if (m === null) {
      if (value.slice(at).trim() === '') break;
      throw new Error('malformed');
    }
    at = pair.lastIndex;
    const name = oauthDecode(m[1]!, false);
    if (seen.has(name)) throw new Error('twice');
    seen.add(name);
    if (name !== 'realm') params.push({ name, value: oauthDecode(m[2]!, false) });
  }
  return params;
}

const outcome = (parse: () => OAuth1Param[]): OAuth1Param[] | 'refused' => {
  try {
    return parse();
  } catch {
    return 'refused';
  }
};

describe('OAuth 1 verification shortcuts', () => {
  it('the Authorization header parser accepts and refuses exactly what the §3.5.1 grammar does', () => {
    const fixed = [
      'OAuth', 'OAuth ', 'oauth realm="x"', 'OAuth realm="x", oauth_nonce="a%20b"', 'OAuth a="1",b="2"', 'OAuth a = "1" ,\t b="2" , ',
      'OAuth ,, a="1",,', 'OAuth a="1" b="2"', 'OAuth a="1', 'OAuth a=1', 'OAuth a="\\"', 'OAuth a="1",a="2"', 'OAuth a=""', 'OAuth =""',
      'OAuth a="1"\v', 'OAuth a="1" x', 'OAuthx a="1"', 'OAuth\ta="%zz"', 'OAuth a%20b="1"', 'OAuth é="1"', 'OAuth a="é"',
    ];
    const pieces = ['OAuth', ' ', '\t', ',', '=', '"', 'a', 'oauth_x', '%20', '\\', 'realm', '1', 'é', '\v'];
    const random = Array.from({ length: 3000 }, (_, i) => {
      let text = i % 3 === 0 ? 'OAuth ' : 'OAuth';
      const bytes = randomBytes(1 + (i % 14));
      for (const b of bytes) text += pieces[b % pieces.length];
      return text;
    });
    const wellFormed = Array.from({ length: 300 }, (_, i) => `OAuth ${Array.from({ length: 1 + (i % 5) }, (__, j) => `p${j}${' '.repeat(i % 2)}=${'\t'.repeat(j % 2)}"${randomText(i % 4, 'ab%2F~')}"`).join(i % 3 ? ', ' : ',')}`);
    for (const value of [...fixed, ...random, ...wellFormed]) {
      assert.deepEqual(outcome(() => parseOAuthHeader(value, DEFAULT_OAUTH1_LIMITS)), outcome(() => referenceParse(value)), JSON.stringify(value));
    }
  });

  it('one-shot HMAC-SHA1 and HMAC-SHA256 equal createHmac for short, block-long, long keys and short, long, non-ASCII messages', () => {
    for (const algorithm of ['sha1', 'sha256'] as HmacAlgorithm[]) {
      for (const keyLength of [0, 1, 63, 64, 65, 200]) {
        const secret = randomText(keyLength, TRICKY);
        const key = prepareHmacKey(algorithm, secret);
        for (const message of ['', 'GET&x&y', randomText(300, 'abc%&='), randomText(2048, 'ab'), randomText(2049, 'ab'), randomText(700, TRICKY), randomText(1500, 'é')]) {
          assert.equal(hmacBase64(key, message), createHmac(algorithm, secret).update(message, 'utf8').digest('base64'), `${algorithm} key ${keyLength} message ${message.length}`);
        }
      }
    }
  });

  it('the base string built in one pass is §3.4.1.1 spelled out: encode(method)&encode(uri)&encode(normalized parameters)', () => {
    for (let round = 0; round < 200; round++) {
      const params: OAuth1Param[] = [];
      const count = 1 + (round % 9);
      for (let i = 0; i < count; i++) params.push({ name: randomText(1 + (i % 4), round % 2 ? 'ab%=&_' : TRICKY), value: randomText(i % 6, TRICKY) });
      // Duplicates, kept and sorted by value.
      params.push({ ...params[0]!, value: randomText(3, TRICKY) }, { name: 'oauth_signature', value: 'left out' });
      const uri = `https://h.example/${randomText(5, TRICKY)}`;
      const expected = `GET&${oauthEncode(uri)}&${oauthEncode(normalizeParameters(params))}`;
      assert.equal(signatureBaseString('get', uri, params), expected);
    }
  });

  it('a signature checks only against the secrets it was made with, whatever keys were prepared before', () => {
    const base = signatureBaseString('GET', 'https://h.example/article/1', [{ name: 'oauth_nonce', value: 'n' }]);
    for (const method of ['HMAC-SHA1', 'HMAC-SHA256', 'PLAINTEXT'] as const) {
      const a = { consumerSecret: 'cs', tokenSecret: 'ts-a', rsaPublicKey: undefined };
      const b = { consumerSecret: 'cs', tokenSecret: 'ts-b', rsaPublicKey: undefined };
      const signedA = oauth1Signature(method, base, a);
      const signedB = oauth1Signature(method, base, b);
      for (let i = 0; i < 3; i++) {
        assert.equal(checkOAuth1Signature(method, base, signedA, a), true);
        assert.equal(checkOAuth1Signature(method, base, signedA, b), false);
        assert.equal(checkOAuth1Signature(method, base, signedB, b), true);
        assert.equal(checkOAuth1Signature(method, base, signedB, a), false);
      }
      // `&` in a secret is encoded in the signing key: ('a&b', '') and ('a', 'b') are different keys.
      const amp = { consumerSecret: 'a&b', tokenSecret: undefined, rsaPublicKey: undefined };
      const split = { consumerSecret: 'a', tokenSecret: 'b', rsaPublicKey: undefined };
      assert.equal(checkOAuth1Signature(method, base, oauth1Signature(method, base, amp), split), false);
    }
  });
});
