/**
 * @module auth/nonce-store
 * Where the hmac scheme remembers nonces it has accepted, so a replayed request is refused.
 * Implementations: `MemoryNonceStore` (one process), `StoreNonceStore` (SQLite/PostgreSQL, the default),
 * `RedisNonceStore` (shared by many instances).
 */

export interface NonceStore {
  /**
   * Records `key` for `ttlMs`; resolves true when it was not seen within its lifetime (fresh), false when
   * it was (a replay). Rejects when the store cannot answer: the caller then fails closed (503).
   */
  consume(key: string, ttlMs: number): Promise<boolean>;
  /** Resolves when the store can answer (readiness, `/readyz`); rejects when `consume` would. */
  ping?(): Promise<void>;
  close?(): Promise<void>;
}

/** Thrown by a nonce store that cannot answer; the hmac scheme turns any rejection into a 503. */
export class NonceStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NonceStoreUnavailableError';
  }
}
