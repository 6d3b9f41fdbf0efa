/**
 * @module auth/oauth-token
 * The OAuth 2.0 token service (RFC 6749): client authentication, the authorization_code (with PKCE),
 * client_credentials, password and refresh_token grants with rotation and reuse detection, revocation
 * (RFC 7009), introspection (RFC 7662).
 * HTTP lives in `oauth-router.ts`; this module sees parameters, not requests.
 */
import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { NewToken, OAuthClient, Store, TokenRecord, User } from '../storage/store.js';
import type { JwtAccessTokens } from './jwt-keys.js';
import { OAuthError, invalidRequest } from './oauth-errors.js';
import { dummyPasswordHash, verifyPassword } from './passwords.js';
import { safeEqual as defaultSafeEqual, type SafeEqual } from './safe-equal.js';
import { parseScope } from './scopes.js';
import { FailureThrottle, type AttemptThrottle } from './throttle.js';
import { ThrottledChecks } from './throttled-check.js';
import { generateToken, hashToken, verifyClientSecret } from './tokens.js';
import { isCodeVerifier, verifierMatches } from './pkce.js';

/** What the token service reads and writes; without `oauth2` there is no authorization code grant. */
export type OAuthStore = Pick<
  Store,
  'getUser' | 'getClient' | 'saveToken' | 'getToken' | 'rotateRefreshToken' | 'revokeToken' | 'revokeFamily'
> & Partial<Pick<Store, 'oauth2'>>;

/** Longest life of an authorization code (RFC 6749 §4.1.2: "a maximum authorization code lifetime of 10 minutes is RECOMMENDED"). */
export const MAX_CODE_TTL_MS = 10 * 60_000;

export interface OAuthOptions {
  store: OAuthStore;
  /**
   * Issuer identifier (RFC 8414 §2): an http(s) URL without path, query or fragment. When omitted,
   * each request names its own (the router passes the request's public origin, http/public-origin).
   */
  issuer?: string;
  /** Default 15 minutes. */
  accessTokenTtlMs?: number;
  /** Default 30 days. */
  refreshTokenTtlMs?: number;
  /** Enable the resource owner password grant (RFC 6749 §4.3). Default true (the service turns it off in production). */
  passwordGrant?: boolean;
  /**
   * Accept the authorization_code grant and issue codes (needs a store with `oauth2`). Default false;
   * createOAuthRouter turns it on when it serves /oauth/authorize (given `consent` pages).
   */
  authorizationCode?: boolean;
  /** Life of authorization codes, ms; default and at most 10 minutes. */
  codeTtlMs?: number;
  /** When set, only these (first-party) clients may use the password grant; others get unauthorized_client. */
  passwordGrantClients?: string[];
  /** JWT mode: access tokens are RFC 9068 JWTs. */
  jwt?: JwtAccessTokens;
  /** Published as `scopes_supported` (RFC 8414 §2): the application's scopes (none by default). */
  scopesSupported?: readonly string[];
  /**
   * Counts client-secret and password attempts before each check, per client id / user name and
   * source address; default 10 per minute, in memory.
   */
  throttle?: AttemptThrottle;
  safeEqual?: SafeEqual;
  now?: () => number;
}

/** How the client presented its credentials (RFC 6749 §2.3.1); `none`: a public client's client_id alone (§2.1, §3.2.1). */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  method: 'client_secret_basic' | 'client_secret_post' | 'none';
}

/** True for a public client (RFC 6749 §2.1): registered without a secret. */
export function isPublicClient(client: OAuthClient): boolean {
  return client.secretHash === '';
}

/** RFC 6749 §5.1. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

/** Longest accepted token lifetime (10 years). */
export const MAX_TOKEN_LIFETIME_MS = 10 * 365 * 24 * 3600_000;

/** Thrown instead of an OAuthError when failures exceeded the throttle: HTTP 429 + Retry-After. */
export class ThrottledError extends OAuthError {
  constructor(error: 'invalid_client' | 'invalid_grant', readonly retryAfter: number) {
    super(error, 'Too many failed attempts; retry later', 429, { 'Retry-After': String(retryAfter) });
  }
}

/**
 * The token service behind `/oauth/token`, `/oauth/revoke` and `/oauth/introspect`.
 * @example
 *   const oauth = new OAuthTokenService({ store, issuer: 'https://api.example' });
 *   const client = await oauth.authenticateClient(creds);
 *   const tokens = await oauth.token(new URLSearchParams('grant_type=client_credentials'), client);
 */
export class OAuthTokenService {
  /** The fixed issuer; undefined when each request's public origin is the issuer. */
  readonly issuer: string | undefined;
  readonly jwt: JwtAccessTokens | undefined;
  readonly passwordGrant: boolean;
  readonly scopesSupported: readonly string[];
  /** Life of authorization codes, ms. */
  readonly codeTtlMs: number;
  private readonly store: OAuthStore;
  private readonly accessTtl: number;
  private readonly refreshTtl: number;
  private readonly passwordClients: Set<string> | undefined;
  private readonly checks: ThrottledChecks;
  // Keys the fingerprints of checks in flight: no secret or password is kept as a map key.
  private readonly fingerprintKey = randomBytes(32).toString('base64');
  private readonly equal: SafeEqual;
  private readonly now: () => number;

  constructor(o: OAuthOptions) {
    if (o.issuer !== undefined) checkIssuer(o.issuer);
    this.issuer = o.issuer;
    this.store = o.store;
    this.jwt = o.jwt;
    this.accessTtl = o.accessTokenTtlMs ?? 15 * 60_000;
    this.refreshTtl = o.refreshTokenTtlMs ?? 30 * 24 * 3600_000;
    this.passwordGrant = o.passwordGrant ?? true;
    this.passwordClients = o.passwordGrantClients === undefined ? undefined : new Set(o.passwordGrantClients);
    this.scopesSupported = o.scopesSupported ?? [];
    this.checks = new ThrottledChecks(o.throttle ?? new FailureThrottle());
    this.equal = o.safeEqual ?? defaultSafeEqual;
    this.now = o.now ?? Date.now;
    this.codeFlow = o.authorizationCode === true && o.store.oauth2 !== undefined;
    this.codeTtlMs = o.codeTtlMs ?? MAX_CODE_TTL_MS;
    if (!(this.codeTtlMs > 0) || this.codeTtlMs > MAX_CODE_TTL_MS) throw new RangeError(`OAuth codeTtlMs must be positive and at most 10 minutes, got ${this.codeTtlMs}`);
    for (const [name, ttl] of [['accessTokenTtlMs', this.accessTtl], ['refreshTokenTtlMs', this.refreshTtl]] as const) {
      // Past this bound an expiry is no longer a valid Date: refuse it here, not at the first token request.
      if (!(ttl > 0) || ttl > MAX_TOKEN_LIFETIME_MS) throw new RangeError(`OAuth ${name} must be positive and at most 10 years, got ${ttl}`);
    }
  }

  /** True when the authorization code grant is on (`authorizationCode`, and a store keeping codes). */
  readonly codeFlow: boolean;

  grantTypes(): string[] {
    return [...(this.codeFlow ? ['authorization_code'] : []), 'client_credentials', ...(this.passwordGrant ? ['password'] : []), 'refresh_token'];
  }

  /**
   * The client, or invalid_client (401; the router adds the Basic challenge) / 429 when throttled.
   * `source` is the caller's address as the throttle counts it (auth/source-address).
   */
  async authenticateClient(creds: ClientCredentials, source = 'unknown'): Promise<OAuthClient> {
    if (creds.method === 'none') {
      // A public client has no secret to guess: its client_id names it, and only public clients may do so.
      const client = await this.store.getClient(creds.clientId);
      if (client === undefined || !isPublicClient(client)) throw new OAuthError('invalid_client', 'Client authentication failed', 401);
      return client;
    }
    const subject = 'client:' + creds.clientId;
    const client = await this.store.getClient(creds.clientId);
    const stored = client?.secretHash ?? DUMMY_CLIENT_HASH;
    // Unknown clients compare against a dummy hash too, so both failures cost the same.
    const outcome = await this.checks.run(subject, source, this.fingerprint(subject, source, creds.clientSecret, stored), () => verifyClientSecret(creds.clientSecret, stored, this.equal));
    if (outcome.wait > 0) throw new ThrottledError('invalid_client', outcome.wait);
    if (!outcome.ok || client === undefined) throw new OAuthError('invalid_client', 'Client authentication failed', 401);
    return client;
  }

  /** Identifies one guess in flight: subject, source, the guess and the record it is checked against. */
  private fingerprint(subject: string, source: string, guess: string, stored: string): string {
    return hash('sha256', [this.fingerprintKey, subject, source, guess, stored].join('\0'), 'base64url');
  }

  /**
   * POST /oauth/token for an authenticated client; `source` as for `authenticateClient` (the password
   * grant counts per source); `issuer` names the JWTs issued (default the fixed issuer).
   */
  async token(params: URLSearchParams, client: OAuthClient, source = 'unknown', issuer: string | undefined = this.issuer): Promise<TokenResponse> {
    const grantType = params.get('grant_type');
    if (grantType === null || grantType === '') throw invalidRequest('grant_type is required');
    // RFC 6749 §4.3.2, §4.4: a client that cannot keep a secret gets no grant that rests on one.
    if (isPublicClient(client) && (grantType === 'client_credentials' || grantType === 'password')) {
      throw new OAuthError('unauthorized_client', `A public client may not use the ${grantType} grant`);
    }
    switch (grantType) {
      case 'authorization_code':
        if (!this.codeFlow) throw new OAuthError('unsupported_grant_type', 'The authorization code grant is not available');
        return this.authorizationCode(params, client, issuer);
      case 'client_credentials':
        return this.clientCredentials(params, client, issuer);
      case 'password':
        if (!this.passwordGrant) throw new OAuthError('unsupported_grant_type', 'The password grant is disabled');
        return this.passwordGrantFor(params, client, source, issuer);
      case 'refresh_token':
        return this.refresh(params, client, issuer);
      default:
        throw new OAuthError('unsupported_grant_type', `Unsupported grant_type "${grantType}"`);
    }
  }

  /**
   * RFC 7009 §2: revokes a token issued to this client. An unknown token is not an error (§2.2); a
   * token issued to another client is refused (§2.1), and stays valid.
   */
  async revoke(params: URLSearchParams, client: OAuthClient): Promise<void> {
    const token = params.get('token');
    if (token === null || token === '') throw invalidRequest('token is required');
    const rec = await this.store.getToken(hashToken(token));
    if (rec === undefined) return;
    if (rec.clientId !== client.clientId) throw new OAuthError('unauthorized_client', 'The token was not issued to this client');
    // A refresh token carries its whole grant: revoking it revokes the family, access tokens included.
    if (rec.kind === 'refresh') await this.store.revokeFamily(rec.familyId);
    else await this.store.revokeToken(rec.hash);
    this.jwt?.noteRevocation();
  }

  /**
   * RFC 7662 §2.2: the token's state; `{ active: false }` for anything not currently valid, and for a
   * token this client may not look at. A client sees the tokens issued to it; a client registered
   * for an admin user (a resource server) sees every token. Otherwise any client could test tokens it
   * found elsewhere and read whose they are (RFC 7662 §4).
   */
  async introspect(params: URLSearchParams, client: OAuthClient, issuer: string | undefined = this.issuer): Promise<Record<string, unknown>> {
    const token = params.get('token');
    if (token === null || token === '') throw invalidRequest('token is required');
    const rec = await this.store.getToken(hashToken(token));
    if (rec === undefined) return { active: false };
    if (rec.clientId !== client.clientId && (await this.store.getUser(client.userName))?.role !== 'admin') return { active: false };
    if (!(await this.isActive(rec))) return { active: false };
    return {
      active: true,
      scope: rec.scopes.join(' '),
      client_id: rec.clientId,
      username: rec.userName,
      sub: rec.userName,
      exp: Math.floor(rec.expiresAt.getTime() / 1000),
      ...(issuer !== undefined ? { iss: issuer } : {}),
      ...(rec.kind === 'access' ? { token_type: 'Bearer' } : {}),
    };
  }

  private async isActive(rec: TokenRecord): Promise<boolean> {
    if (rec.revoked || rec.expiresAt.getTime() <= this.now()) return false;
    if (rec.kind === 'refresh' && rec.usedAt !== null) return false;
    const [user, client] = await Promise.all([this.store.getUser(rec.userName), this.store.getClient(rec.clientId)]);
    return user !== undefined && client !== undefined;
  }

  private async clientCredentials(params: URLSearchParams, client: OAuthClient, issuer: string | undefined): Promise<TokenResponse> {
    const scopes = this.grantedScopes(params, client.scopes);
    const user = await this.store.getUser(client.userName);
    if (user === undefined) throw new OAuthError('unauthorized_client', "The client's user no longer exists");
    // RFC 6749 §4.4.3: no refresh token for client_credentials.
    return this.issue({ client, user, scopes, familyId: randomUUID(), withRefresh: false, issuer });
  }

  /**
   * Issues an authorization code for `user`'s approval (RFC 6749 §4.1.2): 256 random bits, stored as
   * a hash with what the token request must repeat. Returns the code to hand to the client.
   */
  async issueCode(grant: { client: OAuthClient; user: User; redirectUri: string; scopes: string[]; codeChallenge: string }): Promise<{ code: string; hash: string }> {
    const store = this.codeStore();
    const code = generateToken();
    const hash = hashToken(code);
    await store.saveCode({
      hash, clientId: grant.client.clientId, userName: grant.user.name, redirectUri: grant.redirectUri, scopes: grant.scopes,
      codeChallenge: grant.codeChallenge, familyId: randomUUID(), expiresAtMs: this.now() + this.codeTtlMs,
    });
    // A password change revokes the user's grants after storing the new hash; one landing between the
    // sign-in and this save missed the code: read the hash again and spend the code if it changed.
    const current = await this.store.getUser(grant.user.name);
    if (current === undefined || current.passwordHash !== grant.user.passwordHash) {
      await store.redeemCode(hash, [], this.now());
      throw new OAuthError('invalid_grant', 'The user changed while approving');
    }
    return { code, hash };
  }

  /**
   * RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.6): the code must be live, unused, issued to this client
   * for this redirect URI, and the verifier must hash to its challenge. A code used before is a
   * replay (§4.1.2, RFC 9700 §4.2.4): the tokens it issued are revoked.
   */
  private async authorizationCode(params: URLSearchParams, client: OAuthClient, issuer: string | undefined): Promise<TokenResponse> {
    const store = this.codeStore();
    const code = params.get('code');
    const verifier = params.get('code_verifier');
    const redirectUri = params.get('redirect_uri');
    if (code === null || code === '') throw invalidRequest('code is required');
    if (redirectUri === null) throw invalidRequest('redirect_uri is required');
    if (verifier === null || !isCodeVerifier(verifier)) throw invalidRequest('code_verifier is required: 43 to 128 unreserved characters (RFC 7636 §4.1)');
    const hash = hashToken(code);
    const rec = await store.getCode(hash);
    if (rec === undefined || rec.clientId !== client.clientId) throw new OAuthError('invalid_grant', 'Invalid authorization code');
    if (rec.usedAtMs !== null) return this.replayed(hash);
    if (rec.expiresAtMs <= this.now()) throw new OAuthError('invalid_grant', 'The authorization code has expired');
    if (rec.redirectUri !== redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request');
    if (!verifierMatches(verifier, rec.codeChallenge)) throw new OAuthError('invalid_grant', 'code_verifier does not match the code challenge');
    const user = await this.store.getUser(rec.userName);
    if (user === undefined) throw new OAuthError('invalid_grant', 'The user no longer exists');
    // Scopes the client lost since the approval are not granted.
    const scopes = rec.scopes.filter((s) => client.scopes.includes(s));
    const { response, records } = await this.mint({ client, user, scopes, familyId: rec.familyId, withRefresh: true, issuer });
    const outcome = await store.redeemCode(hash, records, this.now());
    if (outcome === 'reused') return this.replayed(hash);
    if (outcome !== 'ok') throw new OAuthError('invalid_grant', 'Invalid authorization code');
    return response;
  }

  /** A second exchange of a code: the store revokes its family (redeemCode), and the request fails. */
  private async replayed(hash: string): Promise<never> {
    await this.codeStore().redeemCode(hash, [], this.now());
    this.jwt?.noteRevocation();
    throw new OAuthError('invalid_grant', 'The authorization code was used before; the tokens it issued are revoked');
  }

  private codeStore(): NonNullable<OAuthStore['oauth2']> {
    const store = this.store.oauth2;
    if (store === undefined || !this.codeFlow) throw new OAuthError('unsupported_grant_type', 'The authorization code grant is not available');
    return store;
  }

  private async passwordGrantFor(params: URLSearchParams, client: OAuthClient, source: string, issuer: string | undefined): Promise<TokenResponse> {
    if (this.passwordClients !== undefined && !this.passwordClients.has(client.clientId)) {
      throw new OAuthError('unauthorized_client', 'This client may not use the password grant');
    }
    const username = params.get('username');
    const password = params.get('password');
    if (username === null || username === '' || password === null) throw invalidRequest('username and password are required');
    const scopes = this.grantedScopes(params, client.scopes);
    const subject = 'user:' + username;
    const user = await this.store.getUser(username);
    const stored = user?.passwordHash ?? (await dummyPasswordHash());
    const outcome = await this.checks.run(subject, source, this.fingerprint(subject, source, password, stored), () => verifyPassword(password, stored, this.equal));
    if (outcome.wait > 0) throw new ThrottledError('invalid_grant', outcome.wait);
    if (!outcome.ok || user === undefined) throw new OAuthError('invalid_grant', 'Invalid username or password');
    const familyId = randomUUID();
    const response = await this.issue({ client, user, scopes, familyId, withRefresh: true, issuer });
    // A password change revokes the user's tokens after storing the new hash. If it landed between
    // this grant's check and its save, that revocation missed the tokens just saved: read the
    // hash again (after the save, so a change that missed them is visible) and take them back.
    const current = await this.store.getUser(username);
    if (current === undefined || current.passwordHash !== user.passwordHash) {
      await this.store.revokeFamily(familyId);
      throw new OAuthError('invalid_grant', 'Invalid username or password');
    }
    return response;
  }

  private async refresh(params: URLSearchParams, client: OAuthClient, issuer: string | undefined): Promise<TokenResponse> {
    const token = params.get('refresh_token');
    if (token === null || token === '') throw invalidRequest('refresh_token is required');
    const rec = await this.store.getToken(hashToken(token));
    // RFC 6749 §6 / §10.4: the token must be a live refresh token bound to this very client.
    if (rec === undefined || rec.kind !== 'refresh' || rec.clientId !== client.clientId || rec.revoked || rec.expiresAt.getTime() <= this.now()) {
      throw new OAuthError('invalid_grant', 'Invalid refresh token');
    }
    // The scope may narrow (RFC 6749 §6) and never exceeds what the client is registered for today.
    const allowed = rec.scopes.filter((s) => client.scopes.includes(s));
    const scopes = params.has('scope') ? this.grantedScopes(params, allowed) : allowed;
    const user = await this.store.getUser(rec.userName);
    if (user === undefined) throw new OAuthError('invalid_grant', 'The user no longer exists');
    const { response, records } = await this.mint({ client, user, scopes, familyId: rec.familyId, withRefresh: true, issuer });
    // Marking the old token used and saving its successors is one store step: a reuse racing this
    // rotation (on another instance, say) revokes the successors too, whichever comes first.
    const outcome = await this.store.rotateRefreshToken(rec.hash, records);
    if (outcome === 'reused') {
      // Rotation (OAuth 2.0 Security BCP, RFC 9700 §4.14.2): a used refresh token coming back means it
      // leaked; the store has revoked the whole family, so neither the thief nor the client keeps access.
      this.jwt?.noteRevocation();
      throw new OAuthError('invalid_grant', 'Refresh token reuse detected; the grant is revoked');
    }
    if (outcome !== 'ok') throw new OAuthError('invalid_grant', 'Invalid refresh token');
    return response;
  }

  private grantedScopes(params: URLSearchParams, allowed: readonly string[]): string[] {
    const raw = params.get('scope');
    if (raw === null) return [...allowed];
    const requested = parseScope(raw);
    if (requested === undefined) throw new OAuthError('invalid_scope', 'Malformed scope');
    const extra = requested.filter((s) => !allowed.includes(s));
    if (extra.length > 0) throw new OAuthError('invalid_scope', `Scope not allowed for this client: ${extra.join(' ')}`);
    return requested;
  }

  /** New tokens saved at once (a fresh grant). */
  private async issue(grant: Grant): Promise<TokenResponse> {
    const { response, records } = await this.mint(grant);
    for (const r of records) await this.store.saveToken(r);
    return response;
  }

  /**
   * New tokens and the records (hashes only) that make them valid once saved. `user` is the record
   * the grant just read; a JWT carries its role, so checks need no store read.
   */
  private async mint({ client, user, scopes, familyId, withRefresh, issuer }: Grant): Promise<{ response: TokenResponse; records: NewToken[] }> {
    const userName = user.name;
    const now = this.now();
    const accessExpires = new Date(now + this.accessTtl);
    const access =
      this.jwt === undefined
        ? generateToken()
        : await this.jwt.sign({ sub: userName, clientId: client.clientId, scopes, jti: randomBytes(16).toString('base64url'), expiresAt: accessExpires, roles: [user.role] }, issuer);
    const base = { clientId: client.clientId, userName, scopes, familyId };
    const records: NewToken[] = [{ ...base, hash: hashToken(access), kind: 'access', expiresAt: accessExpires }];
    const response: TokenResponse = {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.floor(this.accessTtl / 1000),
      scope: scopes.join(' '),
    };
    if (withRefresh) {
      const refresh = generateToken();
      records.push({ ...base, hash: hashToken(refresh), kind: 'refresh', expiresAt: new Date(now + this.refreshTtl) });
      response.refresh_token = refresh;
    }
    return { response, records };
  }
}

/** What one grant issues: tokens for `user` through `client`, JWTs naming `issuer`. */
interface Grant {
  client: OAuthClient;
  user: User;
  scopes: string[];
  familyId: string;
  withRefresh: boolean;
  issuer: string | undefined;
}

/** RFC 8414 §2: an issuer is an https (or, for development, http) URL without query or fragment; roa's has no path. */
function checkIssuer(issuer: string): void {
  const u = new URL(issuer);
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.pathname !== '/' || u.search !== '' || u.hash !== '') {
    throw new Error(`OAuth issuer must be an http(s) URL without path, query or fragment: ${issuer}`);
  }
}

const DUMMY_CLIENT_HASH = 'sha256$' + randomBytes(32).toString('base64url');
