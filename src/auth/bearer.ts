/**
 * @module auth/bearer
 * Bearer tokens (RFC 6750): opaque tokens looked up by SHA-256 hash, or RFC 9068 JWTs.
 */
import { HttpError } from '../errors/http-error.js';
import { publicOrigin } from '../http/public-origin.js';
import type { Request } from '../http/request.js';
import type { Store, TokenRecord, User } from '../storage/store.js';
import type { JwtAccessTokens, VerifiedClaims } from './jwt-keys.js';
import type { AuthScheme, Caller } from './scheme.js';
import { hashToken } from './tokens.js';
import { NOT_LOADED, RecordCache } from './user-cache.js';
import { BoundedMap } from '../util/bounded-map.js';

export interface BearerSchemeOptions {
  /** How long user and client records are reused (default 1000 ms; 0 = every request). */
  recordTtlMs?: number;
  store: Pick<Store, 'getToken' | 'getUser' | 'getClient'> & Partial<Pick<Store, 'getTokenNow'>>;
  /** JWT mode: access tokens are RFC 9068 JWTs signed by this key. */
  jwt?: JwtAccessTokens;
  realm?: string;
  now?: () => number;
}

/** How long a JWT known not to be revoked is trusted before the store is asked again. */
const REVOCATION_RECHECK_MS = 1000;

/** The scopes a token's `scope` claim grants. */
function scopesOf(claims: VerifiedClaims): string[] {
  return claims.scope === '' ? [] : claims.scope.split(' ');
}

/** The caller a user's token acts as, with the role the user has now; `scopes` becomes the caller's own. */
function bearerCaller(user: User, clientId: string, scopes: string[]): Caller {
  return { name: user.name, role: user.role, scopes, scheme: 'bearer', clientId };
}

/**
 * The issuer a JWT must name here: the configured one, or, when none is, the public origin of the
 * request (http/public-origin): a token is good at the origin that issued it, so one issued through
 * the HTTPS gateway is refused when replayed at the service's plain port, and the other way round.
 */
function expectedIssuer(jwt: JwtAccessTokens, req: Request): string {
  return jwt.issuer ?? publicOrigin(req);
}

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const BEARER_RE = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The Bearer scheme. Any token that is unknown, expired, revoked, of the wrong kind, or whose client or
 * user was removed answers 401 `error="invalid_token"` (RFC 6750 §3.1).
 * @example
 *   new Authenticator([new BasicScheme({ store }), new BearerScheme({ store })]);
 */
export class BearerScheme implements AuthScheme {
  readonly name = 'Bearer';
  private readonly realm: string;
  private readonly now: () => number;

  constructor(private readonly options: BearerSchemeOptions) {
    this.realm = options.realm ?? 'roa';
    this.now = options.now ?? Date.now;
    this.records = new RecordCache(options.store, options.recordTtlMs, this.now);
  }

  challenge(): string {
    return `Bearer realm="${this.realm}"`;
  }

  matches(req: Request): boolean {
    const h = req.headers.authorization;
    return h !== undefined && /^bearer(?: |$)/i.test(h);
  }

  async authenticate(req: Request): Promise<Caller> {
    return this.authenticateNow(req);
  }

  /** Without a promise for a JWT verified, and checked against revocation, within the last second. */
  authenticateNow(req: Request): Caller | Promise<Caller> {
    const m = BEARER_RE.exec(req.headers.authorization ?? '');
    // RFC 6750 §3.1: a malformed request is invalid_request, answered 400.
    if (m === null) {
      throw new HttpError(400, 'Malformed Bearer credentials', {
        code: 'ROA_ERR_MALFORMED_CREDENTIALS',
        headers: { 'WWW-Authenticate': `Bearer realm="${this.realm}", error="invalid_request"` },
      });
    }
    const token = m[1]!;
    const jwt = this.options.jwt;
    if (jwt !== undefined && token.includes('.')) {
      const issuer = expectedIssuer(jwt, req);
      const recent = this.recentJwtCaller(token, issuer);
      if (recent !== undefined) return recent;
      return this.fromJwt(token, issuer).then(this.orInvalidToken);
    }
    if (this.options.store.getTokenNow !== undefined) return this.fromOpaqueNow(token);
    return this.fromOpaque(token).then(this.orInvalidToken);
  }

  private readonly orInvalidToken = (caller: Caller | undefined): Caller => {
    if (caller === undefined) throw this.invalidToken();
    return caller;
  };

  /**
   * The caller of a JWT whose signature was verified and whose revocation was checked within
   * REVOCATION_RECHECK_MS (and since this process last revoked anything), when its user's and
   * client's records are cached; undefined when `fromJwt` must decide. The role is the user's
   * current one, never the token's `roles` claim: a demoted or removed user loses it within the
   * record cache's second, as with every other scheme (issue 24).
   */
  private recentJwtCaller(token: string, issuer: string): Caller | undefined {
    const jwt = this.options.jwt!;
    const claims = jwt.peek(token, issuer);
    if (claims === undefined || !this.revocationCheckedRecently(token, jwt, this.now())) return undefined;
    const user = this.records.peekUser(claims.sub);
    const client = this.records.peekClient(claims.client_id);
    if (user === NOT_LOADED || client === NOT_LOADED) return undefined;
    if (user === undefined || client === undefined) throw this.invalidToken();
    return bearerCaller(user, claims.client_id, scopesOf(claims));
  }

  /** Whether the store confirmed this token unrevoked within REVOCATION_RECHECK_MS, and since this process last revoked anything. */
  private revocationCheckedRecently(token: string, jwt: JwtAccessTokens, now: number): boolean {
    const seen = this.unrevoked.get(token);
    return seen !== undefined && seen.epoch === jwt.revocationEpoch && now - seen.at < REVOCATION_RECHECK_MS;
  }

  /**
   * An opaque token on a store that reads tokens in-process: the token row is read on every request
   * (revocation is instant), and the caller comes without a promise once the user and client records
   * are cached (every request after the first); until then it waits for them, the row already in hand.
   */
  private fromOpaqueNow(token: string): Caller | Promise<Caller> {
    const rec = this.options.store.getTokenNow!(hashToken(token));
    if (!this.isLiveAccess(rec)) throw this.invalidToken();
    const user = this.records.peekUser(rec.userName);
    const client = this.records.peekClient(rec.clientId);
    if (user === NOT_LOADED || client === NOT_LOADED) return this.callerFor(rec.userName, rec.clientId, rec.scopes).then(this.orInvalidToken);
    if (user === undefined || client === undefined) throw this.invalidToken();
    return bearerCaller(user, rec.clientId, rec.scopes);
  }

  private isLiveAccess(rec: TokenRecord | undefined): rec is TokenRecord {
    return rec !== undefined && rec.kind === 'access' && !rec.revoked && rec.expiresAt.getTime() > this.now();
  }

  private async fromOpaque(token: string): Promise<Caller | undefined> {
    const rec = await this.options.store.getToken(hashToken(token));
    if (!this.isLiveAccess(rec)) return undefined;
    return this.callerFor(rec.userName, rec.clientId, rec.scopes);
  }

  private async fromJwt(token: string, issuer: string): Promise<Caller | undefined> {
    const jwt = this.options.jwt!;
    const claims = await jwt.verify(token, issuer);
    if (claims === undefined) return undefined;
    const scopes = scopesOf(claims);
    // JWTs are also recorded by hash, so revocation (RFC 7009) and reuse detection reach them. The
    // store is asked at most once a second per token (at once after this process revoked anything):
    // JWT mode trades that second for checks without a store round trip per request; other
    // resource servers may verify the tokens statelessly with the JWKS.
    const now = this.now();
    if (!this.revocationCheckedRecently(token, jwt, now)) {
      const rec = await this.options.store.getToken(hashToken(token));
      if (rec === undefined || rec.revoked) {
        this.unrevoked.delete(token);
        return undefined;
      }
      this.unrevoked.set(token, { at: now, epoch: jwt.revocationEpoch });
    }
    // The user's current record decides the role (and that the user and client still exist).
    return this.callerFor(claims.sub, claims.client_id, scopes);
  }

  private readonly unrevoked = new BoundedMap<string, { at: number; epoch: number }>(10_000);
  private readonly records: RecordCache;

  private async callerFor(userName: string, clientId: string, scopes: string[]): Promise<Caller | undefined> {
    // The token itself was just read from the store (removing a user or client deletes its
    // tokens); the user's role and the client are reused for up to a second.
    const user = await this.records.getUser(userName);
    const client = await this.records.getClient(clientId);
    if (user === undefined || client === undefined) return undefined;
    return bearerCaller(user, clientId, [...scopes]);
  }

  private invalidToken(): HttpError {
    return new HttpError(401, 'The access token is invalid or expired', {
      code: 'ROA_ERR_INVALID_TOKEN',
      headers: { 'WWW-Authenticate': `Bearer realm="${this.realm}", error="invalid_token"` },
    });
  }
}
