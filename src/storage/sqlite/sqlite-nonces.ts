/** @module storage/sqlite/sqlite-nonces What SqliteStore asks of a replay-protection nonce store, and the two it chooses from. */

export interface NonceRequest {
  key: string;
  expiresAtMs: number;
}

/**
 * Decides a batch of nonces in one IMMEDIATE transaction: per key and in order, true (fresh, now
 * recorded) or false (seen and not yet expired, including earlier in the same batch). Exact across
 * connections and processes sharing the file; if it throws, nothing of the batch is recorded.
 * Implemented by `SqliteNonceTable` (the default) and `SqliteNonceLog` (opt-in).
 */
export interface SqliteNonces {
  consume(batch: readonly NonceRequest[], now?: number): boolean[];
  /** Live nonces this store counts at its latest decision's clock (for tests and diagnostics). */
  readonly size: number;
}

/** Default `memoryLimit` of the nonce log: at most 32 MiB of fingerprints. */
export const DEFAULT_NONCE_MEMORY_LIMIT = 1_000_000;
