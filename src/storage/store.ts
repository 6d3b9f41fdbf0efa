/**
 * @module storage/store
 * The storage contract every adapter (SQLite, PostgreSQL) implements; nothing above `storage/` sees SQL.
 */
import type { OAuth1Store } from './oauth1-records.js';
import type { OAuth2Store } from './oauth2-records.js';

export type Role = 'reader' | 'editor' | 'admin';

/** A price; `amount` holds exact decimal digits as text (e.g. "12.50"), never a float. */
export interface Price {
  amount: string;
  currency: string;
}

export interface ArticleInput {
  title: string;
  price: Price;
}

export interface Article {
  /** Server-assigned, numeric. */
  id: number;
  /** Client-chosen key from PUT /articles/{slug}, else null. */
  slug: string | null;
  title: string;
  price: Price;
  /** User name of the creator. */
  owner: string;
  /** Content hash of (title, amount, currency): same content => same value (22 chars base64url of sha256). */
  etag: string;
  createdAt: Date;
  /** Changes only when the content changes. */
  updatedAt: Date;
}

/**
 * Preconditions of a write (RFC 9110 §13.1).
 * `ifMatch` is a list of acceptable stored etags, or '*' (the resource must exist);
 * `ifNoneMatch: '*'` means create-only.
 */
export type WriteCondition = { ifMatch?: string[] | '*'; ifNoneMatch?: '*' };

export type WriteResult =
  | { status: 'created'; article: Article }
  | { status: 'replaced'; article: Article; changed: boolean }
  | { status: 'missing' }
  | { status: 'precondition-failed'; current?: Article };

export interface User {
  name: string;
  role: Role;
  passwordHash: string;
  /** Opaque encrypted blob; the storage layer never interprets it. */
  hmacSecret: string | null;
  createdAt: Date;
}

export interface OAuthClient {
  clientId: string;
  /** `''` for a public client (RFC 6749 §2.1: native and browser apps), which has no secret and never authenticates with one. */
  secretHash: string;
  userName: string;
  scopes: string[];
  createdAt: Date;
}

export interface TokenRecord {
  hash: string;
  kind: 'access' | 'refresh';
  clientId: string;
  userName: string;
  scopes: string[];
  familyId: string;
  expiresAt: Date;
  usedAt: Date | null;
  revoked: boolean;
}

/** A token as it is issued: not used, not revoked. */
export type NewToken = Omit<TokenRecord, 'usedAt' | 'revoked'>;

/** One claim of an idempotency key by one request (`token` is unique to that request). */
export interface IdempotencyKeyRef {
  /** The authenticated caller's name: keys are scoped to it. */
  caller: string;
  key: string;
  token: string;
}

export interface IdempotencyClaim extends IdempotencyKeyRef {
  /** Digest of what the request asks for; a retry must match it. */
  fingerprint: string;
  nowMs: number;
  /** Until when the running marker holds the key; after it another request may take the key over. */
  lockedUntilMs: number;
  /** When the key (and the answer stored under it) is forgotten. */
  expiresAtMs: number;
}

/** An answer stored under an idempotency key, replayed to retries. */
export interface IdempotentResponse {
  status: number;
  /** Header fields by name (as sent). */
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyClaimResult =
  | { state: 'claimed' }
  | { state: 'running'; fingerprint: string }
  | { state: 'done'; fingerprint: string; response: IdempotentResponse };

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** OAuth 1.0a consumers and credentials (storage/oauth1-records). */
  readonly oauth1: OAuth1Store;
  /** OAuth 2.0 redirect URIs and authorization codes (storage/oauth2-records). */
  readonly oauth2: OAuth2Store;

  getArticleById(id: number): Promise<Article | undefined>;
  getArticleBySlug(slug: string): Promise<Article | undefined>;
  /** Ascending id, at most `limit`, only ids greater than `afterId` when given. */
  listArticles(opts: { limit: number; afterId?: number }): Promise<Article[]>;
  createArticle(input: ArticleInput, owner: string): Promise<Article>;
  /**
   * PUT at a client-chosen slug: create (status created) or replace; atomic; concurrent creates of one
   * slug yield exactly one 'created'. Identical content => 'replaced' with changed=false and nothing rewritten.
   */
  putArticleBySlug(slug: string, input: ArticleInput, owner: string, cond?: WriteCondition): Promise<WriteResult>;
  /** Replaces an existing article; never creates ('missing' if absent). */
  replaceArticle(id: number, input: ArticleInput, cond?: WriteCondition): Promise<WriteResult>;
  deleteArticle(id: number, cond?: WriteCondition): Promise<'deleted' | 'missing' | 'precondition-failed'>;

  /** Duplicate name => HttpError 409 code ROA_ERR_USER_EXISTS. */
  createUser(u: { name: string; role: Role; passwordHash: string; hmacSecret?: string | null }): Promise<User>;
  getUser(name: string): Promise<User | undefined>;
  /** Ordered by name. */
  listUsers(): Promise<User[]>;
  removeUser(name: string): Promise<boolean>;
  setUserHmacSecret(name: string, secret: string | null): Promise<boolean>;
  /** Replaces a user's password hash; false when there is no such user. */
  setUserPassword(name: string, passwordHash: string): Promise<boolean>;
  /** Changes a user's role; false when there is no such user. */
  setUserRole(name: string, role: Role): Promise<boolean>;

  /** Duplicate id => HttpError 409 code ROA_ERR_CLIENT_EXISTS; unknown user => HttpError 404 code ROA_ERR_USER_NOT_FOUND. */
  createClient(c: { clientId: string; secretHash: string; userName: string; scopes: string[] }): Promise<OAuthClient>;
  getClient(clientId: string): Promise<OAuthClient | undefined>;
  /** Ordered by clientId. */
  listClients(): Promise<OAuthClient[]>;
  removeClient(clientId: string): Promise<boolean>;

  saveToken(t: NewToken): Promise<void>;
  getToken(hash: string): Promise<TokenRecord | undefined>;
  /**
   * `getToken` without a promise, for stores that answer in-process (SQLite); stores across a network
   * leave it out. The bearer check of every request uses it when present. Throws as `getToken` rejects.
   */
  getTokenNow?(hash: string): TokenRecord | undefined;
  /**
   * Refresh-token rotation as one atomic step. The first use of a live refresh token marks it used and
   * saves its successors ('ok'). A refresh token already used or revoked is a replay (RFC 9700
   * §4.14.2): its whole family is revoked, successors saved by a concurrent rotation included, and
   * nothing is saved ('reused'). 'missing' when there is no such refresh token.
   */
  rotateRefreshToken(hash: string, successors: readonly NewToken[]): Promise<'ok' | 'reused' | 'missing'>;
  revokeToken(hash: string): Promise<boolean>;
  /** Revokes every token of the family, serialised with rotations of it; returns how many were newly revoked. */
  revokeFamily(familyId: string): Promise<number>;
  /** Revokes every token issued for the user, OAuth 1 token credentials too (after a password change); returns how many were newly revoked. */
  revokeUserTokens(userName: string): Promise<number>;

  /** Records a nonce until expiresAt (ms epoch); true if it was not seen before (unexpired). Expired rows are pruned opportunistically. */
  consumeNonce(key: string, expiresAtMs: number): Promise<boolean>;

  /**
   * Claims `(caller, key)` for a request with `Idempotency-Key` in one atomic step, shared by every
   * instance on the database: 'claimed' when the key was free, expired (`expiresAtMs` passed) or held
   * by a running marker whose `lockedUntilMs` passed (its instance crashed); else what the key holds.
   * Times are the caller's ms epoch, so a test can move its clock.
   */
  claimIdempotencyKey(claim: IdempotencyClaim): Promise<IdempotencyClaimResult>;
  /** Stores the answer of the claim holding `token` (the marker stops running); false when the claim was lost. */
  completeIdempotencyKey(ref: IdempotencyKeyRef, response: IdempotentResponse): Promise<boolean>;
  /** Frees the key of the claim holding `token`, so a retry runs anew; false when the claim was lost. */
  releaseIdempotencyKey(ref: IdempotencyKeyRef): Promise<boolean>;
  /** Deletes at most `limit` keys expired at `nowMs`; returns how many went. */
  sweepIdempotencyKeys(nowMs: number, limit: number): Promise<number>;

  /** Resolves when the database answers a trivial query (readiness, `/readyz`); rejects with the store's 503 error when not. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Optional: housekeeping a long-running service wants and a short CLI run does not (SQLite moves
   * WAL checkpoints to a worker thread). Called once by the service after opening the store.
   */
  startBackgroundCheckpoints?(): void;
}
