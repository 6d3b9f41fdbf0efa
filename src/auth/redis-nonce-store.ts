/**
 * @module auth/redis-nonce-store
 * Nonces in Redis (`SET key 1 NX PX ttl`), for several roa instances behind one balancer.
 */
import { createClient } from 'redis';
import { NonceStoreUnavailableError, type NonceStore } from './nonce-store.js';

export interface RedisNonceStoreOptions {
  /** Prepended to every key. Default `roa:nonce:`. */
  prefix?: string;
  /** Connection timeout (ms). Default 1000. */
  connectTimeoutMs?: number;
  /** Per-command deadline (ms); past it the request fails closed. Default 1000. */
  commandTimeoutMs?: number;
}

type Client = ReturnType<typeof createClient>;

/** A NonceStore on Redis; create with `createRedisNonceStore`. */
export class RedisNonceStore implements NonceStore {
  private connecting: Promise<unknown> | undefined;

  constructor(
    private readonly client: Client,
    private readonly prefix: string,
    private readonly commandTimeoutMs: number,
  ) {}

  async consume(key: string, ttlMs: number): Promise<boolean> {
    try {
      await this.ready();
      // SET NX is atomic: of two concurrent requests with one nonce exactly one gets 'OK'.
      const reply = await withTimeout(
        this.client.set(this.prefix + key, '1', { condition: 'NX', expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) } }),
        this.commandTimeoutMs,
      );
      return reply === 'OK';
    } catch (err) {
      throw new NonceStoreUnavailableError('Redis nonce store unavailable', { cause: err });
    }
  }

  async close(): Promise<void> {
    // A client still reconnecting has nothing to flush: destroy it rather than wait for a connection.
    if (this.client.isReady) await this.client.close();
    else if (this.client.isOpen) this.client.destroy();
  }

  private async ready(): Promise<void> {
    if (this.client.isReady) return;
    if (!this.client.isOpen) {
      this.connecting ??= this.client.connect().finally(() => {
        this.connecting = undefined;
      });
    }
    if (this.connecting !== undefined) await withTimeout(this.connecting, this.commandTimeoutMs);
    if (!this.client.isReady) throw new Error('Redis not ready');
  }
}

/**
 * A Redis nonce store. Connects lazily on first use with a short timeout; while Redis is unreachable
 * every `consume` rejects (never queues), so the hmac scheme answers 503 instead of hanging.
 * @example
 *   const nonces = createRedisNonceStore('redis://127.0.0.1:6379', { prefix: 'roa:nonce:' });
 */
export function createRedisNonceStore(url: string, options: RedisNonceStoreOptions = {}): RedisNonceStore {
  const connectTimeout = options.connectTimeoutMs ?? 1000;
  const client = createClient({
    url,
    // Commands issued while disconnected fail at once instead of waiting in the offline queue.
    disableOfflineQueue: true,
    socket: { connectTimeout, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000) },
  });
  // node-redis emits 'error' on connection loss; without a listener that would crash the process.
  client.on('error', () => {});
  return new RedisNonceStore(client, options.prefix ?? 'roa:nonce:', options.commandTimeoutMs ?? 1000);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}
