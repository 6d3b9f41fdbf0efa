/** @module auth/memory-nonce-store A bounded, expiring in-process nonce store (single instance only). */
import { NonceStoreUnavailableError, type NonceStore } from './nonce-store.js';

export interface MemoryNonceStoreOptions {
  /** Most nonces held at once. Default 100 000. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * Nonces in a Map, pruned as they expire. When full of unexpired nonces it refuses (rejects) rather than
 * evicting one, since forgetting a live nonce would re-open it for replay: failing closed.
 * @example
 *   const nonces = new MemoryNonceStore({ maxEntries: 10_000 });
 */
export class MemoryNonceStore implements NonceStore {
  private readonly seen = new Map<string, number>();
  private readonly max: number;
  private readonly now: () => number;

  constructor(options: MemoryNonceStoreOptions = {}) {
    this.max = options.maxEntries ?? 100_000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.seen.size;
  }

  async consume(key: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const expiresAt = this.seen.get(key);
    if (expiresAt !== undefined && expiresAt > now) return false;
    if (expiresAt !== undefined) this.seen.delete(key);
    if (this.seen.size >= this.max) this.prune(now);
    if (this.seen.size >= this.max) throw new NonceStoreUnavailableError('Nonce store is full');
    this.seen.set(key, now + ttlMs);
    return true;
  }

  /** In-process: answers while the process does. */
  async ping(): Promise<void> {}

  private prune(now: number): void {
    for (const [k, exp] of this.seen) if (exp <= now) this.seen.delete(k);
  }

  async close(): Promise<void> {
    this.seen.clear();
  }
}
