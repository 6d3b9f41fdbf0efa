/**
 * @module auth/redis-throttle
 * The failed-login throttle shared by every instance through Redis (rate-limiter-flexible's rules:
 * its RateLimiterRedis on node-redis by default, auth/resp-rate-limiter with the `resp` client), so
 * guesses spread over N instances behind a balancer are still capped at one limit, not N of them.
 * Each count is one atomic script in Redis: concurrent attempts on any instance are counted before
 * any is checked. While Redis cannot answer in time, the instance's own in-memory limiters decide
 * (the library's insurance limiter, behind RLWrapperTimeouts): guessing stays throttled per
 * instance, and logins are not refused because a counter is away.
 */
import type { ConnectionOptions } from 'node:tls';
import type { RedisLogger } from '../redis/outage-log.js';
import { RateLimiterRedis, RLWrapperTimeouts, type RateLimiterLike } from 'rate-limiter-flexible';
import { closeNodeRedis, connectNodeRedis } from '../redis/node-redis-client.js';
import type { RedisClientKind } from '../redis/redis-client.js';
import { parseRedisUrl } from '../redis/redis-url.js';
import { RespClient } from '../redis/resp-client.js';
import { RespRateLimiter } from './resp-rate-limiter.js';
import { limiterOptions, LimiterThrottle, memoryLimiters, throttleSettings, type AttemptThrottle, type ThrottleLimiter, type ThrottleLimiters, type ThrottleOptions } from './throttle.js';

export interface RedisThrottleOptions extends ThrottleOptions {
  /** Prepended to every key. Default `roa:throttle:`. */
  prefix?: string;
  /** Connect and per-command deadline (ms) before the local limiters answer instead. Default 1000. */
  commandTimeoutMs?: number;
  /** Which client: `node-redis` (default) or `resp` (redis/open-redis). */
  client?: RedisClientKind;
  /** TLS options for a `rediss://` URL (ca, cert, key, …). */
  tls?: ConnectionOptions;
  /** Where an unreachable Redis is logged at warn, once per outage (the local counters answer meanwhile). */
  logger?: RedisLogger;
}

type Limiters = Record<keyof ThrottleLimiters, ThrottleLimiter>;

/**
 * The throttle counted in Redis, with the instance's in-memory one as its fallback. `url` is
 * `redis://`, `rediss://` or a Unix socket (`unix:///run/redis.sock?db=N`), as for the nonce store.
 * node-redis is loaded on construction, so the first attempts may wait for that import.
 * @example
 *   const throttle = new RedisFailureThrottle('redis://127.0.0.1:6379');
 *   createOAuthRouter({ store, issuer, throttle });
 */
export class RedisFailureThrottle implements AttemptThrottle {
  #throttle: LimiterThrottle | undefined;
  readonly #ready: Promise<LimiterThrottle>;

  constructor(url: string, options: RedisThrottleOptions = {}) {
    const settings = throttleSettings(options);
    const endpoint = new URL(url);
    parseRedisUrl(endpoint); // a bad URL fails here, at start-up
    const prefix = (options.prefix ?? 'roa:throttle:').replace(/:$/, '');
    const timeoutMs = options.commandTimeoutMs ?? 1000;
    const local = memoryLimiters(settings, `${prefix}:local`);
    const o = limiterOptions(settings);
    const keys = { pair: 'try', source: 'from', locks: 'locks' } as const;
    /** Each Redis limiter answers within the deadline, else its local stand-in does. */
    const insured = (make: (name: keyof ThrottleLimiters, keyPrefix: string) => RateLimiterLike): Limiters => {
      const wrap = (name: keyof ThrottleLimiters) =>
        new RLWrapperTimeouts({ limiter: make(name, `${prefix}:${keys[name]}`), timeoutMs, insuranceLimiter: local[name] });
      return { pair: wrap('pair'), source: wrap('source'), locks: wrap('locks') };
    };
    if (options.client === 'resp') {
      const redis = new RespClient(endpoint, { connectTimeoutMs: timeoutMs, commandTimeoutMs: timeoutMs, ...(options.tls !== undefined ? { tls: options.tls } : {}), logger: options.logger });
      this.#throttle = new LimiterThrottle(insured((name, keyPrefix) => new RespRateLimiter({ ...o[name], redis, keyPrefix })), settings, () => redis.close());
      this.#ready = Promise.resolve(this.#throttle);
      return;
    }
    this.#ready = connectNodeRedis(endpoint, { connectTimeoutMs: timeoutMs, ...(options.tls !== undefined ? { tls: options.tls } : {}), logger: options.logger }).then(
      (client) => {
        const limiters = insured((name, keyPrefix) => new RateLimiterRedis({ ...o[name], storeClient: client, useRedisPackage: true, rejectIfRedisNotReady: true, keyPrefix }));
        return (this.#throttle = new LimiterThrottle(limiters, settings, () => closeNodeRedis(client, timeoutMs)));
      },
      // node-redis could not be loaded: this instance counts alone.
      () => (this.#throttle = new LimiterThrottle(local, settings)),
    );
  }

  attempt(subject: string, source: string): Promise<number> {
    return this.#throttle !== undefined ? this.#throttle.attempt(subject, source) : this.#ready.then((t) => t.attempt(subject, source));
  }

  succeeded(subject: string, source: string): Promise<void> {
    return this.#throttle !== undefined ? this.#throttle.succeeded(subject, source) : this.#ready.then((t) => t.succeeded(subject, source));
  }

  async close(): Promise<void> {
    await (await this.#ready).close();
  }
}
