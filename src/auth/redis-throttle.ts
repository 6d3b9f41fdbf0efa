/**
 * @module auth/redis-throttle
 * The failed-login throttle shared by every instance through Redis (rate-limiter-flexible's rules,
 * counted in Redis through auth/resp-rate-limiter), so guesses spread over N instances behind a
 * balancer are still capped at one limit, not N of them. Each count is one atomic script in Redis:
 * concurrent attempts on any instance are counted before any is checked. While Redis cannot answer,
 * the instance's own in-memory limiters decide (rate-limiter-flexible's insurance limiter): guessing
 * stays throttled per instance, and logins are not refused because a counter is away.
 */
import { RespPipeline } from './resp-pipeline.js';
import { RespRateLimiter } from './resp-rate-limiter.js';
import { limiterOptions, LimiterThrottle, memoryLimiters, throttleSettings, type ThrottleLimiters, type ThrottleOptions } from './throttle.js';

export interface RedisThrottleOptions extends ThrottleOptions {
  /** Prepended to every key. Default `roa:throttle:`. */
  prefix?: string;
  /** Connect and per-command deadline (ms) before the local limiters answer instead. Default 1000. */
  commandTimeoutMs?: number;
}

/**
 * The throttle counted in Redis, with the instance's in-memory one as its fallback. `url` is
 * `redis://`, `rediss://` or a Unix socket (`unix:///run/redis.sock?db=N`), as for the nonce store.
 * @example
 *   const throttle = new RedisFailureThrottle('redis://127.0.0.1:6379');
 *   createOAuthRouter({ store, issuer, throttle });
 */
export class RedisFailureThrottle extends LimiterThrottle {
  constructor(url: string, options: RedisThrottleOptions = {}) {
    const settings = throttleSettings(options);
    const prefix = (options.prefix ?? 'roa:throttle:').replace(/:$/, '');
    const timeout = options.commandTimeoutMs ?? 1000;
    const redis = new RespPipeline(new URL(url), { connectTimeoutMs: timeout, commandTimeoutMs: timeout });
    const local = memoryLimiters(settings, `${prefix}:local`);
    const o = limiterOptions(settings);
    const limiter = (name: keyof ThrottleLimiters, key: string): RespRateLimiter =>
      new RespRateLimiter({ ...o[name], redis, keyPrefix: `${prefix}:${key}`, insuranceLimiter: local[name] });
    super({ pair: limiter('pair', 'try'), source: limiter('source', 'from'), locks: limiter('locks', 'locks') }, settings, () => redis.close());
  }
}
