/**
 * @module storage/oauth1-records
 * The OAuth 1.0a (RFC 5849) provider's records and the part of the storage contract that keeps them:
 * consumers (clients), temporary credentials (§2.1) and token credentials (§2.3).
 * Secrets arrive sealed (auth/secret-box) and tokens as hashes: the storage layer interprets neither.
 */

export interface OAuth1Consumer {
  clientId: string;
  /** The shared secret, sealed (HMAC signatures need it in plaintext, so it is encrypted, never hashed); null for an RSA-only consumer. */
  sealedSecret: string | null;
  /** PEM of the public key RSA-SHA1 signatures are checked with (RFC 5849 §3.4.3), if registered. */
  rsaPublicKey: string | null;
  /** Callback URIs the consumer may name; empty means any absolute URI (or `oob`). */
  callbacks: string[];
  /** A user the consumer belongs to, if any; consumers act for whoever approves them. */
  userName: string | null;
  createdAt: Date;
}

export type NewOAuth1Consumer = Omit<OAuth1Consumer, 'createdAt'>;

/** Temporary credentials (RFC 5849 §2.1), keyed by the hash of their token. */
export interface OAuth1TemporaryCredentials {
  tokenHash: string;
  sealedSecret: string;
  clientId: string;
  /** An absolute URI or `oob`. */
  callback: string;
  expiresAtMs: number;
  /** Set once a user approved them (§2.2): the hash of the verifier handed to the consumer, and who approved. */
  verifierHash: string | null;
  userName: string | null;
}

export type NewOAuth1TemporaryCredentials = Omit<OAuth1TemporaryCredentials, 'verifierHash' | 'userName'>;

/** Token credentials (RFC 5849 §2.3), keyed by the hash of their token. */
export interface OAuth1TokenCredentials {
  tokenHash: string;
  sealedSecret: string;
  clientId: string;
  userName: string;
  createdAt: Date;
  revoked: boolean;
}

export type NewOAuth1TokenCredentials = Omit<OAuth1TokenCredentials, 'createdAt' | 'revoked'>;

/** What `exchangeTemporaryCredentials` did. */
export type OAuth1Exchange =
  | { status: 'issued'; token: OAuth1TokenCredentials }
  /** No such temporary credentials, expired, not approved, or the verifier did not match; either way they are gone now. */
  | { status: 'refused' };

/** Where a Store keeps OAuth 1.0a records (`store.oauth1`). Times are the caller's ms epoch, so tests move the clock. */
export interface OAuth1Store {
  /** Duplicate id (among OAuth 1 consumers and OAuth 2 clients) => 409 ROA_ERR_CLIENT_EXISTS; unknown user => 404 ROA_ERR_USER_NOT_FOUND. */
  createConsumer(c: NewOAuth1Consumer): Promise<OAuth1Consumer>;
  getConsumer(clientId: string): Promise<OAuth1Consumer | undefined>;
  /** Ordered by clientId. */
  listConsumers(): Promise<OAuth1Consumer[]>;
  /** Removes the consumer with every credential issued to it. */
  removeConsumer(clientId: string): Promise<boolean>;

  /**
   * Saves new temporary credentials unless the consumer already holds `maxLive` unexpired ones
   * (false then, nothing saved). Expired ones are pruned on the way.
   */
  saveTemporaryCredentials(t: NewOAuth1TemporaryCredentials, nowMs: number, maxLive: number): Promise<boolean>;
  /** Unexpired temporary credentials, approved or not. */
  getTemporaryCredentials(tokenHash: string, nowMs: number): Promise<OAuth1TemporaryCredentials | undefined>;
  /** Records a user's approval once: false when they are missing, expired or already approved. */
  approveTemporaryCredentials(tokenHash: string, approval: { verifierHash: string; userName: string }, nowMs: number): Promise<boolean>;
  /**
   * Deletes temporary credentials not yet approved (a denial); false when there were none pending. An
   * approval already given stands: a denial posted after it (a second tab, a replayed form) cannot
   * take away the credentials the client is about to exchange.
   */
  deletePendingTemporaryCredentials(tokenHash: string): Promise<boolean>;
  /**
   * One atomic step (RFC 5849 §2.3): the temporary credentials are deleted whatever happens (single use,
   * and a wrong verifier burns them), and token credentials are saved for their approving user only when
   * they were unexpired, approved and `checkVerifier` accepts the stored verifier hash.
   */
  exchangeTemporaryCredentials(
    tokenHash: string, nowMs: number, checkVerifier: (verifierHash: string) => boolean, issue: (approved: OAuth1TemporaryCredentials & { userName: string }) => NewOAuth1TokenCredentials,
  ): Promise<OAuth1Exchange>;

  getTokenCredentials(tokenHash: string): Promise<OAuth1TokenCredentials | undefined>;
  /** Revokes the token credentials of a user, of a consumer, or of both together; returns how many were newly revoked. */
  revokeTokenCredentials(filter: { userName?: string; clientId?: string }): Promise<number>;
}

/** Callback lists are stored as a JSON array of strings. */
export function joinCallbacks(callbacks: readonly string[]): string {
  return JSON.stringify(callbacks);
}

export function splitCallbacks(text: string): string[] {
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === 'string') : [];
}

/** A row of `oauth1_consumers` (times as ms epoch in both dialects). */
export interface ConsumerRow {
  client_id: string; secret: string | null; rsa_public_key: string | null; callbacks: string; user_name: string | null; created_at: number | string;
}
export interface TemporaryRow {
  token_hash: string; secret: string; client_id: string; callback: string; expires_at: number | string;
  verifier_hash: string | null; user_name: string | null;
}
export interface TokenCredentialsRow {
  token_hash: string; secret: string; client_id: string; user_name: string; created_at: number | string; revoked: number | boolean;
}

export const CONSUMER_COLUMNS = 'client_id, secret, rsa_public_key, callbacks, user_name, created_at';
export const TEMPORARY_COLUMNS = 'token_hash, secret, client_id, callback, expires_at, verifier_hash, user_name';
export const TOKEN_CREDENTIALS_COLUMNS = 'token_hash, secret, client_id, user_name, created_at, revoked';

// PostgreSQL returns BIGINT as text; ms epochs stay far below 2^53.
export function toConsumer(r: ConsumerRow): OAuth1Consumer {
  return {
    clientId: r.client_id, sealedSecret: r.secret, rsaPublicKey: r.rsa_public_key, callbacks: splitCallbacks(r.callbacks),
    userName: r.user_name, createdAt: new Date(Number(r.created_at)),
  };
}
export function toTemporary(r: TemporaryRow): OAuth1TemporaryCredentials {
  return {
    tokenHash: r.token_hash, sealedSecret: r.secret, clientId: r.client_id, callback: r.callback,
    expiresAtMs: Number(r.expires_at), verifierHash: r.verifier_hash, userName: r.user_name,
  };
}
export function toTokenCredentials(r: TokenCredentialsRow): OAuth1TokenCredentials {
  return {
    tokenHash: r.token_hash, sealedSecret: r.secret, clientId: r.client_id, userName: r.user_name,
    createdAt: new Date(Number(r.created_at)), revoked: r.revoked === true || r.revoked === 1,
  };
}
