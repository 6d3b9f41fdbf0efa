/**
 * @module auth/redis-nonce-store
 * Nonces in Redis (`SET key 1 NX PX ttl`), for several roa instances behind one balancer. Commands go
 * over one connection (redis/open-redis) that writes all nonces of one event-loop turn together.
 */
import type { ConnectionOptions } from 'node:tls';
import type { RedisLogger } from '../redis/outage-log.js';
import { openRedis } from '../redis/open-redis.js';
import type { RedisClient, RedisClientKind } from '../redis/redis-client.js';
import { NonceStoreUnavailableError, type NonceStore } from './nonce-store.js';

export interface RedisNonceStoreOptions {
  /** Prepended to every key. Default `roa:nonce:`. */
  prefix?: string;
  /** Connection timeout (ms). Default 1000. */
  connectTimeoutMs?: number;
  /** Per-command deadline (ms); past it the request fails closed. Default 1000. */
  commandTimeoutMs?: number;
  /** Which client: `node-redis` (default) or `resp` (redis/open-redis). */
  client?: RedisClientKind;
  /** TLS options for a `rediss://` URL (ca, cert, key, …). */
  tls?: ConnectionOptions;
  /** Where an unreachable Redis is logged at warn, once per outage. */
  logger?: RedisLogger;
}

/**
 * A NonceStore on Redis. Connects on first use; while Redis is unreachable every `consume` rejects at
 * once (nothing waits in an offline queue), so hmac answers 503 instead of hanging, and never accepts.
 */
export class RedisNonceStore implements NonceStore {
  private readonly redis: RedisClient;
  private readonly prefix: string;

  constructor(url: string, options: RedisNonceStoreOptions = {}) {
    this.prefix = options.prefix ?? 'roa:nonce:';
    this.redis = openRedis(url, {
      client: options.client,
      connectTimeoutMs: options.connectTimeoutMs ?? 1000,
      commandTimeoutMs: options.commandTimeoutMs ?? 1000,
      ...(options.tls !== undefined ? { tls: options.tls } : {}),
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
      wrapError: unavailable,
    });
  }

  consume(key: string, ttlMs: number): Promise<boolean> {
    // SET NX is atomic: of two concurrent requests with one nonce exactly one gets OK, the other nil.
    // Failures are wrapped inside the client: one promise per nonce.
    return this.redis.setIfAbsent(this.prefix + key, '1', ttlMs);
  }

  /** PING on the nonces' connection: rejects at once while Redis is down (the client does not queue). */
  async ping(): Promise<void> {
    await this.redis.command(['PING']);
  }

  close(): Promise<void> {
    return this.redis.close();
  }
}

function unavailable(err: Error): Error {
  return err instanceof NonceStoreUnavailableError ? err : new NonceStoreUnavailableError('Redis nonce store unavailable', { cause: err });
}

/**
 * A Redis nonce store under a key prefix.
 * @example
 *   const nonces = createRedisNonceStore('redis://127.0.0.1:6379', { prefix: 'roa:nonce:' });
 */
export function createRedisNonceStore(url: string, options: RedisNonceStoreOptions = {}): RedisNonceStore {
  // A bad URL fails here, at startup, not per request.
  return new RedisNonceStore(url, options);
}
