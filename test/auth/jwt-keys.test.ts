/** @module test/auth/jwt-keys */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from '../helpers/node-test.js';
import { decodeProtectedHeader } from 'jose';
import { JwtAccessTokens } from '../../src/auth/jwt-keys.js';

describe('JwtAccessTokens', () => {
  const dir = mkdtempSync(join(tmpdir(), 'roa-jwt-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const claims = (expiresAt: Date) => ({ sub: 'ann', clientId: 'cli', scopes: ['articles:read'], jti: 'j1', expiresAt });

  it('creates the key file (0600) once and reuses the key', async () => {
    const file = join(dir, 'k.json');
    const a = await JwtAccessTokens.load({ issuer: 'https://as.example', keyFile: file });
    if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
    const b = await JwtAccessTokens.load({ issuer: 'https://as.example', keyFile: file });
    assert.equal(a.kid, b.kid);
    const token = await a.sign(claims(new Date(Date.now() + 60_000)));
    assert.ok(await b.verify(token));
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'ES256', typ: 'at+jwt', kid: a.kid });
    const [jwk] = a.jwks().keys;
    assert.equal(jwk!.d, undefined, 'the JWKS holds no private part');
    assert.equal(jwk!.kid, a.kid);
  });
  it('supports EdDSA', async () => {
    const t = await JwtAccessTokens.load({ issuer: 'https://as.example', keyFile: join(dir, 'ed.json'), alg: 'EdDSA' });
    assert.equal(t.alg, 'EdDSA');
    assert.ok(await t.verify(await t.sign(claims(new Date(Date.now() + 60_000)))));
  });
  it('refuses expired tokens, another issuer, another audience, and another key', async () => {
    const file = join(dir, 'k.json');
    const a = await JwtAccessTokens.load({ issuer: 'https://as.example', keyFile: file });
    assert.equal(await a.verify(await a.sign(claims(new Date(Date.now() - 120_000)))), undefined);
    const otherIss = await JwtAccessTokens.load({ issuer: 'https://evil.example', keyFile: file });
    assert.equal(await a.verify(await otherIss.sign(claims(new Date(Date.now() + 60_000)))), undefined);
    const otherAud = await JwtAccessTokens.load({ issuer: 'https://as.example', audience: 'https://rs.example', keyFile: file });
    assert.equal(await a.verify(await otherAud.sign(claims(new Date(Date.now() + 60_000)))), undefined);
    const otherKey = await JwtAccessTokens.load({ issuer: 'https://as.example', keyFile: join(dir, 'other.json') });
    assert.equal(await a.verify(await otherKey.sign(claims(new Date(Date.now() + 60_000)))), undefined);
    assert.equal(await a.verify('not.a.jwt'), undefined);
  });
});
