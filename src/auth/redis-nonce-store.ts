/**
 * @module auth/redis-nonce-store
 * Nonces in Redis (`SET key 1 NX PX ttl`), for several roa instances behind one balancer.
 * The `redis` driver is imported on first use, so deployments without Redis never load it.
 */
import type { createClient } from 'redis';
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

/**
 * A NonceStore on Redis. Connects lazily on first use with a short timeout; while Redis is unreachable
 * every `consume` rejects (commands never wait in an offline queue), so hmac answers 503 instead of hanging.
 */
export class RedisNonceStore implements NonceStore {
  private client: Client | undefined;
  private connecting: Promise<unknown> | undefined;
  private readonly prefix: string;
  private readonly connectTimeoutMs: number;
  private readonly commandTimeoutMs: number;

  constructor(
    private readonly url: string,
    options: RedisNonceStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? 'roa:nonce:';
    this.connectTimeoutMs = options.connectTimeoutMs ?? 1000;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 1000;
  }

  async consume(key: string, ttlMs: number): Promise<boolean> {
    try {
      const client = await this.ready();
      // SET NX is atomic: of two concurrent requests with one nonce exactly one gets 'OK'.
      const reply = await withTimeout(
        client.set(this.prefix + key, '1', { condition: 'NX', expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) } }),
        this.commandTimeoutMs,
      );
      return reply === 'OK';
    } catch (err) {
      throw new NonceStoreUnavailableError('Redis nonce store unavailable', { cause: err });
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    if (client === undefined) return;
    // A client still reconnecting has nothing to flush: destroy it rather than wait for a connection.
    if (client.isReady) await client.close();
    else if (client.isOpen) client.destroy();
  }

  private async ready(): Promise<Client> {
    if (this.client === undefined) {
      const { createClient } = await import('redis');
      const client = createClient({
        url: this.url,
        disableOfflineQueue: true,
        socket: { connectTimeout: this.connectTimeoutMs, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000) },
      });
      // node-redis emits 'error' on connection loss; without a listener that would crash the process.
      client.on('error', () => {});
      this.client ??= client;
    }
    const client = this.client;
    if (client.isReady) return client;
    if (!client.isOpen) {
      if (this.connecting === undefined) {
        this.connecting = client.connect().finally(() => {
          this.connecting = undefined;
        });
        // A connect that fails after our deadline fired must not surface as an unhandled rejection.
        this.connecting.catch(() => {});
      }
    }
    if (this.connecting !== undefined) await withTimeout(this.connecting, this.connectTimeoutMs + this.commandTimeoutMs);
    if (!client.isReady) throw new Error('Redis not ready');
    return client;
  }
}

/**
 * A Redis nonce store under a key prefix.
 * @example
 *   const nonces = createRedisNonceStore('redis://127.0.0.1:6379', { prefix: 'roa:nonce:' });
 */
export function createRedisNonceStore(url: string, options: RedisNonceStoreOptions = {}): RedisNonceStore {
  new URL(url); // bad configuration fails at startup, not per request
  return new RedisNonceStore(url, options);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}
