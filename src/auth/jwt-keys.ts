/**
 * @module auth/jwt-keys
 * The signing key of JWT access tokens (RFC 9068), generated once and kept in a key file (mode 0600),
 * plus issuing and verifying `at+jwt` tokens with jose.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { BoundedMap } from '../util/bounded-map.js';

export type JwtAlg = 'ES256' | 'EdDSA';

/** Most verified tokens remembered at once. */
const VERIFIED_LIMIT = 10_000;
export const DEFAULT_JWT_KEY_FILE = './data/jwt-signing-key.json';

export interface JwtKeyOptions {
  keyFile?: string;
  /** Algorithm of a newly generated key. Default ES256. */
  alg?: JwtAlg;
}

export interface AccessJwtClaims {
  sub: string;
  clientId: string;
  scopes: string[];
  jti: string;
  expiresAt: Date;
  /** The user's role at issue, as an RFC 9068 §2.2.3.1 `roles` claim, for other resource servers; roa itself reads the current role from the user record. */
  roles?: string[];
}

export type VerifiedClaims = JWTPayload & { client_id: string; scope: string; sub: string; roles?: unknown };

/**
 * Signs and verifies RFC 9068 access tokens with one asymmetric key. With a fixed `issuer` every token
 * names it; without one, each token names the issuer it is signed for (the public origin of the
 * request that asked for it), and is accepted only where that same issuer is expected.
 * @example
 *   const jwt = await JwtAccessTokens.load({ issuer: 'https://api.example/', audience: 'https://api.example/' });
 *   app.get('/oauth/jwks.json', (req, res) => res.json(jwt.jwks()));
 */
export class JwtAccessTokens {
  private constructor(
    /** The fixed issuer; undefined when each call names one. */
    readonly issuer: string | undefined,
    /** The fixed audience; undefined when it is the issuer of each token. */
    readonly audience: string | undefined,
    readonly alg: JwtAlg,
    readonly kid: string,
    private readonly privateKey: CryptoKey,
    private readonly publicKey: CryptoKey,
    private readonly publicJwk: JWK,
  ) {}

  /**
   * Loads the key file, creating it with a fresh key (mode 0600) on first start. Without `issuer`,
   * `sign` and `verify` are told the issuer per call; the audience defaults to the issuer.
   */
  static async load(options: JwtKeyOptions & { issuer?: string; audience?: string }): Promise<JwtAccessTokens> {
    const file = options.keyFile ?? DEFAULT_JWT_KEY_FILE;
    let jwk: JWK;
    try {
      jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
      if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
        throw new Error(`JWT key file ${file} is readable by group or others; run \`chmod 600 ${file}\``);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      jwk = await createKeyFile(file, options.alg ?? 'ES256');
    }
    const alg: JwtAlg = jwk.crv === 'Ed25519' ? 'EdDSA' : 'ES256';
    const privateKey = (await importJWK(jwk, alg)) as CryptoKey;
    const { d: _d, ...pub } = jwk;
    const publicKey = (await importJWK(pub, alg)) as CryptoKey;
    const kid = await calculateJwkThumbprint(pub);
    const publicJwk: JWK = { ...pub, kid, alg, use: 'sig' };
    return new JwtAccessTokens(options.issuer, options.audience ?? options.issuer, alg, kid, privateKey, publicKey, publicJwk);
  }

  /** The JWK Set to publish (RFC 7517 §5): the public key only. */
  jwks(): { keys: JWK[] } {
    return { keys: [{ ...this.publicJwk }] };
  }

  /** An RFC 9068 access token, naming `issuer` (the fixed one by default). */
  sign(c: AccessJwtClaims, issuer: string | undefined = this.issuer): Promise<string> {
    if (issuer === undefined) return Promise.reject(new Error('JwtAccessTokens: no issuer to sign for'));
    return new SignJWT({ client_id: c.clientId, scope: c.scopes.join(' '), ...(c.roles ? { roles: c.roles } : {}) })
      .setProtectedHeader({ alg: this.alg, typ: 'at+jwt', kid: this.kid }) // RFC 9068 §2.1
      .setIssuer(issuer)
      .setAudience(this.audience ?? issuer)
      .setSubject(c.sub)
      .setJti(c.jti)
      .setIssuedAt()
      .setExpirationTime(Math.floor(c.expiresAt.getTime() / 1000))
      .sign(this.privateKey);
  }

  /**
   * The claims of a token `verify` accepted for `issuer` and that has not expired since, without a
   * promise; else undefined.
   */
  peek(token: string, issuer: string | undefined = this.issuer): VerifiedClaims | undefined {
    const cached = this.verified.get(token);
    return cached !== undefined && cached.expMs > Date.now() && this.meantFor(cached.claims, issuer) ? cached.claims : undefined;
  }

  /**
   * The claims of a valid token (signature, typ, iss, aud, exp checked: RFC 9068 §4), else undefined.
   * `iss` must be `issuer` (the fixed one by default), `aud` the fixed audience or else `issuer`.
   */
  async verify(token: string, issuer: string | undefined = this.issuer): Promise<VerifiedClaims | undefined> {
    if (issuer === undefined) return undefined;
    // A signature once verified stays valid until `exp`: verifying ES256 per request would cost
    // more than the whole rest of a GET, so valid tokens are remembered (bounded) until they expire.
    const cached = this.verified.get(token);
    if (cached !== undefined) {
      if (cached.expMs <= Date.now()) this.verified.delete(token);
      else return this.meantFor(cached.claims, issuer) ? cached.claims : undefined;
    }
    const claims = await this.verifySignature(token, issuer);
    if (claims !== undefined && typeof claims.exp === 'number') {
      this.verified.set(token, { claims, expMs: claims.exp * 1000 });
    }
    return claims;
  }

  /**
   * Bumped whenever this process revokes a token, so callers that cache "not revoked" answers
   * (the Bearer scheme, for at most a second) ask the store again at once.
   */
  revocationEpoch = 0;

  noteRevocation(): void {
    this.revocationEpoch++;
  }

  private readonly verified = new BoundedMap<string, { claims: VerifiedClaims; expMs: number }>(VERIFIED_LIMIT);

  /** Whether verified claims name `issuer` and the audience expected with it. */
  private meantFor(claims: VerifiedClaims, issuer: string | undefined): boolean {
    if (issuer === undefined || claims.iss !== issuer) return false;
    const audience = this.audience ?? issuer;
    return claims.aud === audience || (Array.isArray(claims.aud) && claims.aud.includes(audience));
  }

  private async verifySignature(token: string, issuer: string): Promise<VerifiedClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.publicKey, {
        issuer,
        audience: this.audience ?? issuer,
        typ: 'at+jwt',
        algorithms: [this.alg],
        requiredClaims: ['exp', 'sub', 'client_id', 'jti', 'iat'],
      });
      if (typeof payload.client_id !== 'string' || typeof payload.sub !== 'string') return undefined;
      return { ...payload, client_id: payload.client_id, scope: typeof payload.scope === 'string' ? payload.scope : '', sub: payload.sub };
    } catch {
      return undefined;
    }
  }
}

async function createKeyFile(file: string, alg: JwtAlg): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, alg === 'EdDSA' ? { crv: 'Ed25519', extractable: true } : { extractable: true });
  const jwk = await exportJWK(privateKey);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, JSON.stringify(jwk) + '\n', { flag: 'wx', mode: 0o600 });
    chmodSync(file, 0o600);
    return jwk;
  } catch (err) {
    // Another process created it first: use theirs, so every instance signs with one key.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return JSON.parse(readFileSync(file, 'utf8')) as JWK;
  }
}
