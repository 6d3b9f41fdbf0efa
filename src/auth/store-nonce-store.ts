/** @module auth/store-nonce-store Nonces kept in roa's database (`Store.consumeNonce`): the default, shared by instances on one database. */
import type { Store } from '../storage/store.js';
import type { NonceStore } from './nonce-store.js';

/**
 * A NonceStore over the main Store; a store failure rejects, which the hmac scheme answers with 503.
 * @example
 *   new HmacScheme({ store, box, nonces: new StoreNonceStore(store) });
 */
export class StoreNonceStore implements NonceStore {
  constructor(
    private readonly store: Pick<Store, 'consumeNonce'> & Partial<Pick<Store, 'ping'>>,
    private readonly now: () => number = Date.now,
  ) {}

  consume(key: string, ttlMs: number): Promise<boolean> {
    return this.store.consumeNonce(key, this.now() + ttlMs);
  }

  async ping(): Promise<void> {
    await this.store.ping?.();
  }
}
