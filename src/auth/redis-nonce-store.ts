/**
 * @module auth/redis-nonce-store
 * Nonces in Redis (`SET key 1 NX PX ttl`), for several roa instances behind one balancer. Commands go
 * over one pipelined connection (auth/resp-pipeline): all nonces of one event-loop turn in one write.
 */
import { NonceStoreUnavailableError, type NonceStore } from './nonce-store.js';
import { RespPipeline, type RespReply } from './resp-pipeline.js';

export interface RedisNonceStoreOptions {
  /** Prepended to every key. Default `roa:nonce:`. */
  prefix?: string;
  /** Connection timeout (ms). Default 1000. */
  connectTimeoutMs?: number;
  /** Per-command deadline (ms); past it the request fails closed. Default 1000. */
  commandTimeoutMs?: number;
}

/**
 * A NonceStore on Redis. Connects on first use; while Redis is unreachable every `consume` rejects at
 * once (nothing waits in an offline queue), so hmac answers 503 instead of hanging, and never accepts.
 */
export class RedisNonceStore implements NonceStore {
  private readonly redis: RespPipeline;
  private readonly prefix: string;

  constructor(url: string, options: RedisNonceStoreOptions = {}) {
    this.prefix = options.prefix ?? 'roa:nonce:';
    this.redis = new RespPipeline(new URL(url), {
      connectTimeoutMs: options.connectTimeoutMs ?? 1000,
      commandTimeoutMs: options.commandTimeoutMs ?? 1000,
      wrapError: unavailable,
    });
  }

  consume(key: string, ttlMs: number): Promise<boolean> {
    const k = this.prefix + key;
    const ttl = String(Math.max(1, Math.ceil(ttlMs)));
    // SET key 1 NX PX ttl, encoded inline (the hot path of every signed request). SET NX is atomic:
    // of two concurrent requests with one nonce exactly one gets OK, the other nil.
    const command = `*6\r\n$3\r\nSET\r\n$${Buffer.byteLength(k)}\r\n${k}\r\n$1\r\n1\r\n$2\r\nNX\r\n$2\r\nPX\r\n$${ttl.length}\r\n${ttl}\r\n`;
    // The reply is mapped, and failures wrapped, inside the pipeline: one promise per nonce.
    return this.redis.send(command, freshFromReply);
  }

  close(): Promise<void> {
    return this.redis.close();
  }
}

function freshFromReply(reply: RespReply): boolean {
  if (reply === 'OK') return true;
  if (reply === null) return false;
  throw new NonceStoreUnavailableError(`unexpected Redis reply to SET: ${JSON.stringify(reply)}`);
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
