/** @module test/client/sign-request */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from '../helpers/node-test.js';
import { contentDigest, formatStringToSign, signRequest } from '../../src/client/index.js';

describe('formatStringToSign', () => {
  it('builds the minimal form', () => {
    assert.equal(formatStringToSign({ method: 'GET', target: '/a?b=1' }), 'GET+/a?b=1');
  });
  it('builds the replay-protected form with the Date spaces removed', () => {
    assert.equal(
      formatStringToSign({ method: 'POST', target: '/a', date: 'Sun, 06 Nov 1994 08:49:37 GMT', nonce: 'n'.repeat(16) }),
      'POST+/a+Sun,06Nov199408:49:37GMT+' + 'n'.repeat(16),
    );
  });
  it('follows each Date, also when one repeats and then changes (the compact form is remembered)', () => {
    const nonce = 'n'.repeat(16);
    const build = (date: string) => formatStringToSign({ method: 'GET', target: '/', date, nonce });
    assert.equal(build('Sun, 06 Nov 1994 08:49:37 GMT'), `GET+/+Sun,06Nov199408:49:37GMT+${nonce}`);
    assert.equal(build('Sun, 06 Nov 1994 08:49:37 GMT'), `GET+/+Sun,06Nov199408:49:37GMT+${nonce}`);
    assert.equal(build('Sun, 06 Nov 1994 08:49:38 GMT'), `GET+/+Sun,06Nov199408:49:38GMT+${nonce}`);
    assert.equal(build('Sun, 06 Nov 1994 08:49:37 GMT'), `GET+/+Sun,06Nov199408:49:37GMT+${nonce}`);
  });
  it('appends the Content-Digest field value', () => {
    assert.equal(formatStringToSign({ method: 'PUT', target: '/a', contentDigest: 'sha-256=:AA==:' }), 'PUT+/a+sha-256=:AA==:');
  });
  it('refuses a date without a nonce', () => {
    assert.throws(() => formatStringToSign({ method: 'GET', target: '/', date: 'x' }));
  });
});

describe('contentDigest', () => {
  it('is an RFC 9530 sha-256 dictionary member', () => {
    // RFC 9530 Appendix B.1 example body {"hello": "world"}
    assert.equal(contentDigest('{"hello": "world"}'), 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
    assert.match(contentDigest('x', 'sha-512'), /^sha-512=:[A-Za-z0-9+/]{86}==:$/);
  });
});

describe('signRequest', () => {
  const secret = 'k'.repeat(43);
  const date = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));

  it('signs the replay-protected form by default', () => {
    const h = signRequest({ method: 'get', target: '/articles?x=1', user: 'ann', secret, date, nonce: 'abcdefghijklmnop' });
    assert.equal(h.Date, 'Fri, 02 Jan 2026 03:04:05 GMT');
    const sts = 'GET+/articles?x=1+Fri,02Jan202603:04:05GMT+abcdefghijklmnop';
    assert.equal(h.Authentication, `hmac ann:abcdefghijklmnop:${createHmac('sha256', secret).update(sts).digest('base64')}`);
    assert.equal(h['Content-Digest'], undefined);
  });
  it('signs the minimal form without Date', () => {
    const h = signRequest({ method: 'GET', target: '/a', user: 'ann', secret, minimal: true });
    assert.equal(h.Date, undefined);
    assert.equal(h.Authentication, `hmac ann:${createHmac('sha256', secret).update('GET+/a').digest('base64')}`);
  });
  it('adds and signs Content-Digest for a body', () => {
    const h = signRequest({ method: 'POST', target: '/a', user: 'ann', secret, minimal: true, body: 'hi' });
    const cd = `sha-256=:${createHash('sha256').update('hi').digest('base64')}:`;
    assert.equal(h['Content-Digest'], cd);
    assert.equal(h.Authentication, `hmac ann:${createHmac('sha256', secret).update('POST+/a+' + cd).digest('base64')}`);
  });
  it('reduces a full URL to its path and query', () => {
    const a = signRequest({ method: 'GET', target: 'https://api.example/a?b=1', user: 'u', secret, minimal: true });
    const b = signRequest({ method: 'GET', target: new URL('https://api.example/a?b=1'), user: 'u', secret, minimal: true });
    const c = signRequest({ method: 'GET', target: '/a?b=1', user: 'u', secret, minimal: true });
    assert.equal(a.Authentication, c.Authentication);
    assert.equal(b.Authentication, c.Authentication);
  });
  it('takes the parts positionally too (method, target, body, user, secret, extra), signing the same', () => {
    const nonce = 'abcdefghijklmnop';
    const byObject = signRequest({ method: 'PUT', target: '/a?b=1', body: 'hi', user: 'ann', secret, date, nonce });
    assert.deepEqual(signRequest('PUT', '/a?b=1', 'hi', 'ann', secret, { date, nonce }), byObject);
    const minimal = signRequest('GET', '/a', undefined, 'ann', secret, { minimal: true });
    assert.equal(minimal.Authentication, `hmac ann:${createHmac('sha256', secret).update('GET+/a').digest('base64')}`);
    assert.equal(minimal['Content-Digest'], undefined);
    assert.match(signRequest('GET', '/', undefined, 'ann', secret).Authentication, /^hmac ann:[A-Za-z0-9_-]{22}:/);
    assert.throws(() => (signRequest as (...a: unknown[]) => unknown)('GET', '/', undefined, 'ann'), TypeError);
    assert.throws(() => signRequest('', '/', undefined, 'ann', secret), TypeError);
  });
  it('generates a fresh valid nonce and validates given ones and user names', () => {
    const a = signRequest({ method: 'GET', target: '/', user: 'u', secret });
    const b = signRequest({ method: 'GET', target: '/', user: 'u', secret });
    assert.notEqual(a.Authentication, b.Authentication);
    assert.match(a.Authentication, /^hmac u:[A-Za-z0-9_-]{22}:[A-Za-z0-9+/]{43}=$/);
    assert.throws(() => signRequest({ method: 'GET', target: '/', user: 'u', secret, nonce: 'short' }));
    assert.throws(() => signRequest({ method: 'GET', target: '/', user: 'a:b', secret }));
    // What could not go on a request line as it is, and a key of no bytes.
    for (const target of ['', '/x y', '/caf\u00e9', '/a\tb']) assert.throws(() => signRequest({ method: 'GET', target, user: 'u', secret }), TypeError, JSON.stringify(target));
    assert.throws(() => signRequest({ method: 'GET', target: '/', user: 'u', secret: '' }), TypeError);
    assert.throws(() => signRequest({ method: 'GET', target: 'articles', user: 'u', secret }), TypeError);
    assert.match(signRequest({ method: 'OPTIONS', target: '*', user: 'u', secret, minimal: true }).Authentication, /^hmac u:/);
    assert.throws(() => signRequest({ method: 'GET', target: '/', user: 'u', secret, date: new Date('not a date') }), TypeError);
    assert.throws(() => signRequest({ method: 'GET', target: '/', user: 'u', secret: new Uint8Array(0) }), TypeError);
    // A URL is reduced to its path and query, which the URL parser has percent-encoded already.
    assert.match(signRequest({ method: 'GET', target: new URL('http://h/caf\u00e9?q=a b'), user: 'u', secret, minimal: true }).Authentication, /^hmac u:/);
  });
});
