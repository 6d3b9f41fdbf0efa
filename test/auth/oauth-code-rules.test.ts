/** @module test/auth/oauth-code-rules — redirect URI registration and matching (RFC 8252 §7.3), PKCE S256 (RFC 7636 Appendix B). */
import assert from 'node:assert/strict';
import { describe, it } from '../helpers/node-test.js';
import { isCodeVerifier, s256, verifierMatches } from '../../src/auth/pkce.js';
import { redirectUriMatches, redirectUriProblem } from '../../src/auth/redirect-uris.js';

describe('PKCE S256', () => {
  it("computes RFC 7636 Appendix B's challenge and checks verifiers", () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    assert.equal(s256(verifier), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    assert.equal(verifierMatches(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), true);
    assert.equal(verifierMatches(verifier.slice(0, -1) + 'l', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), false);
    assert.equal(verifierMatches(verifier, verifier), false, 'plain: the verifier as its own challenge');
    assert.equal(isCodeVerifier('a'.repeat(42)), false);
    assert.equal(isCodeVerifier('a'.repeat(129)), false);
    assert.equal(isCodeVerifier('a'.repeat(42) + '+'), false);
  });
});

describe('redirect URIs', () => {
  it('registers https, loopback http and reverse-domain private schemes only', () => {
    for (const ok of ['https://app.example/cb', 'https://app.example/cb?x=1', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb', 'http://localhost/cb', 'com.example.app:/cb']) {
      assert.equal(redirectUriProblem(ok), undefined, ok);
    }
    for (const bad of ['http://app.example/cb', 'https://app.example/cb#f', '/cb', 'javascript:alert(1)', 'data:text/html,x', 'myapp:/cb', 'https://app.example/c b', 'https://bücher.example/', 'https://a.example/' + 'x'.repeat(2100)]) {
      assert.notEqual(redirectUriProblem(bad), undefined, bad);
    }
  });

  it('matches exactly, except the port of a loopback IP literal', () => {
    const registered = ['https://app.example/cb', 'http://127.0.0.1/cb', 'http://[::1]/cb', 'http://localhost/cb'];
    assert.equal(redirectUriMatches('https://app.example/cb', registered), true);
    assert.equal(redirectUriMatches('http://127.0.0.1:51004/cb', registered), true);
    assert.equal(redirectUriMatches('http://[::1]:51004/cb', registered), true);
    for (const no of ['https://app.example/cb/', 'https://APP.example/cb', 'https://app.example:443/cb', 'https://app.example/cb?x', 'http://127.0.0.1:51004/cb/x', 'http://127.0.0.1:51004/CB',
      'http://localhost:51004/cb', 'http://127.0.0.1@evil.example/cb', 'http://127.0.0.1:80@evil.example/cb', 'http://127.0.0.2/cb']) {
      assert.equal(redirectUriMatches(no, registered), false, no);
    }
  });
});
