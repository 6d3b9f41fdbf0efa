/**
 * @module storage/oauth2-records
 * The OAuth 2.0 authorization code flow's records (RFC 6749 §4.1) and the part of the storage contract
 * that keeps them (`store.oauth2`): the redirect URIs a client registered (§3.1.2.2) and authorization
 * codes, stored as hashes, each single-use.
 */
import { splitScopes } from './conditions.js';
import type { NewToken, OAuthClient } from './store.js';

/** An authorization code as it is issued (RFC 6749 §4.1.2), keyed by the hash of the code. */
export interface NewAuthorizationCode {
  hash: string;
  clientId: string;
  /** The user who approved. */
  userName: string;
  /** The redirect URI the request named, which the token request must repeat (§4.1.3). */
  redirectUri: string;
  scopes: string[];
  /** PKCE S256 challenge (RFC 7636 §4.2), base64url. */
  codeChallenge: string;
  /** The token family the code's tokens will belong to: reusing the code revokes it (§4.1.2, §10.5). */
  familyId: string;
  expiresAtMs: number;
}

export interface AuthorizationCode extends NewAuthorizationCode {
  usedAtMs: number | null;
}

/** A client with the redirect URIs it registers in the same step. */
export interface NewRedirectClient {
  clientId: string;
  /** `''` for a public client (RFC 6749 §2.1), which has no secret; else as `Store.createClient`. */
  secretHash: string;
  userName: string;
  scopes: string[];
  redirectUris: string[];
}

/** What `redeemCode` did: 'ok' first use (tokens saved); 'reused' used before (its family revoked, nothing saved); 'missing'. */
export type CodeRedemption = 'ok' | 'reused' | 'missing';

export interface OAuth2Store {
  /**
   * Registers a client and its redirect URIs in one transaction. Duplicate id → HttpError 409
   * ROA_ERR_CLIENT_EXISTS; unknown user → 404 ROA_ERR_USER_NOT_FOUND.
   */
  createClient(c: NewRedirectClient): Promise<OAuthClient>;
  /** The redirect URIs registered for the client, in registration order (none for an unknown client). */
  redirectUris(clientId: string): Promise<string[]>;
  /** Saves a new code; codes expired for a day are pruned as it goes. */
  saveCode(code: NewAuthorizationCode): Promise<void>;
  getCode(hash: string): Promise<AuthorizationCode | undefined>;
  /**
   * The exchange as one atomic step: the first use of a code marks it used and saves `tokens`
   * ('ok'); a code used before is a replay: every token of its family is revoked and nothing is
   * saved ('reused'), whichever of two racing exchanges comes first.
   */
  redeemCode(hash: string, tokens: readonly NewToken[], nowMs: number): Promise<CodeRedemption>;
}

/** Used codes are kept this long past their expiry, so a late replay still revokes what they issued. */
export const CODE_RETENTION_MS = 24 * 3600_000;

export const CODE_COLUMNS = 'hash, client_id, user_name, redirect_uri, scopes, code_challenge, family_id, expires_at, used_at';

/** A code row as either driver returns it (BIGINT may arrive as text from pg). */
export interface CodeRow {
  hash: string; client_id: string; user_name: string; redirect_uri: string; scopes: string;
  code_challenge: string; family_id: string; expires_at: number | string; used_at: number | string | null;
}

export function toCode(r: CodeRow): AuthorizationCode {
  return {
    hash: r.hash, clientId: r.client_id, userName: r.user_name, redirectUri: r.redirect_uri,
    scopes: splitScopes(r.scopes), codeChallenge: r.code_challenge, familyId: r.family_id,
    expiresAtMs: Number(r.expires_at), usedAtMs: r.used_at === null ? null : Number(r.used_at),
  };
}
