/**
 * @module auth/scheme
 * The authentication contract: each scheme (Basic, hmac, Bearer) resolves a request to a `Caller`.
 */
import type { Request } from '../http/request.js';
import type { Role } from '../storage/store.js';

export type { Role };

/** Who is making the request, as resolved by one scheme. */
export interface Caller {
  /** The user name the request acts for (for OAuth client_credentials: the client's registered user). */
  name: string;
  role: Role;
  /** OAuth scopes granted to the token; null means unrestricted (Basic, HMAC act with the user's full role). */
  scopes: string[] | null;
  scheme: 'basic' | 'hmac' | 'bearer' | 'oauth1';
  /** The OAuth client the bearer token was issued to, or the OAuth 1 client that signed the request. */
  clientId?: string;
}

/**
 * One authentication scheme. Implementations: `BasicScheme` (RFC 7617), `HmacScheme` (roa issue 4),
 * `BearerScheme` (RFC 6750).
 */
export interface AuthScheme {
  /** Scheme name as sent in the header: 'Basic' | 'hmac' | 'Bearer'. */
  readonly name: string;
  /** The WWW-Authenticate challenge for this scheme, e.g. `Basic realm="roa"` (RFC 9110 §11.6.1). */
  challenge(): string;
  /** True when the request carries this scheme's credentials (Basic/Bearer: `Authorization`; hmac: `Authentication`). */
  matches(req: Request): boolean;
  /**
   * Resolves the caller, or rejects with HttpError 401 (bad credentials; the Authenticator adds every enabled
   * challenge to WWW-Authenticate), 400 (malformed / Content-Digest mismatch), 503 (nonce store unreachable:
   * fail closed).
   */
  authenticate(req: Request): Promise<Caller>;
  /**
   * Optional: the same answer without a promise when nothing needs waiting for (a cached record, no
   * nonce), else a promise; a refusal may be thrown synchronously. The Authenticator prefers it: a
   * promise and an await per request are measurable on the hot path.
   */
  authenticateNow?(req: Request): Caller | Promise<Caller>;
}

/** True for a promise (or any thenable) rather than a value. */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/** Where the resolved caller is cached on the request. */
export const CALLER_KEY = 'caller';
