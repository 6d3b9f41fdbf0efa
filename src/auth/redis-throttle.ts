/**
 * @module auth/redis-throttle
 * The token endpoint's failure throttle shared by every instance through Redis, so guesses spread
 * over N instances behind a balancer are still capped at one limit, not N of them. Each key is a
 * sorted set of failure times, trimmed to the window by small Lua scripts (one round trip per
 * check). While Redis cannot answer, the instance's own in-memory throttle decides: guessing
 * stays throttled per instance, and token requests are not refused because a counter is away.
 */
import { randomBytes } from 'node:crypto';
import { RespPipeline } from './resp-pipeline.js';
import { DEFAULT_THROTTLE_LIMIT, DEFAULT_THROTTLE_WINDOW_MS, FailureThrottle, type AttemptThrottle } from './throttle.js';

export interface RedisThrottleOptions {
  /** Prepended to every key. Default `roa:throttle:`. */
  prefix?: string;
  /** Failures allowed within the window. Default 10. */
  limit?: number;
  /** Window length (ms). Default 60 000. */
  windowMs?: number;
  /** Per-command deadline (ms) before the local throttle answers instead. Default 1000. */
  commandTimeoutMs?: number;
  now?: () => number;
}

// KEYS[1] = key; ARGV = now (ms), window (ms), limit. Answers ms until another attempt is allowed.
const RETRY_AFTER = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local limit = tonumber(ARGV[3])
if redis.call('ZCARD', KEYS[1]) < limit then return 0 end
local nth = redis.call('ZRANGE', KEYS[1], -limit, -limit, 'WITHSCORES')
return math.max(1, tonumber(nth[2]) + tonumber(ARGV[2]) - tonumber(ARGV[1]))`;

// KEYS[1] = key; ARGV = now (ms), window (ms), limit, a unique member. Keeps at most `limit` entries.
const FAIL = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[3]) + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/**
 * A sliding-window failure counter in Redis, with the instance's in-memory one as its fallback.
 * @example
 *   const throttle = new RedisFailureThrottle('redis://127.0.0.1:6379');
 *   createOAuthRouter({ store, issuer, throttle });
 */
export class RedisFailureThrottle implements AttemptThrottle {
  private readonly redis: RespPipeline;
  private readonly local: FailureThrottle;
  private readonly prefix: string;
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(url: string, options: RedisThrottleOptions = {}) {
    this.prefix = options.prefix ?? 'roa:throttle:';
    this.limit = options.limit ?? DEFAULT_THROTTLE_LIMIT;
    this.windowMs = options.windowMs ?? DEFAULT_THROTTLE_WINDOW_MS;
    this.now = options.now ?? Date.now;
    if (!(Number.isInteger(this.limit) && this.limit > 0) || !(this.windowMs > 0)) throw new RangeError('RedisFailureThrottle: limit and windowMs must be positive');
    const timeout = options.commandTimeoutMs ?? 1000;
    this.redis = new RespPipeline(new URL(url), { connectTimeoutMs: timeout, commandTimeoutMs: timeout });
    this.local = new FailureThrottle({ limit: this.limit, windowMs: this.windowMs, now: this.now });
  }

  async retryAfter(key: string): Promise<number> {
    try {
      const ms = await this.redis.command(['EVAL', RETRY_AFTER, '1', this.prefix + key, String(this.now()), String(this.windowMs), String(this.limit)]);
      if (typeof ms !== 'number') throw new Error(`unexpected Redis reply ${JSON.stringify(ms)}`);
      return ms <= 0 ? 0 : Math.max(1, Math.ceil(ms / 1000));
    } catch {
      return this.local.retryAfter(key);
    }
  }

  async fail(key: string): Promise<void> {
    // Counted here too, so the fallback knows this instance's recent failures if Redis goes away.
    this.local.fail(key);
    const at = this.now();
    await this.redis
      .command(['EVAL', FAIL, '1', this.prefix + key, String(at), String(this.windowMs), String(this.limit), `${at}:${randomBytes(6).toString('base64url')}`])
      .catch(() => undefined);
  }

  async reset(key: string): Promise<void> {
    this.local.reset(key);
    await this.redis.command(['DEL', this.prefix + key]).catch(() => undefined);
  }

  close(): Promise<void> {
    return this.redis.close();
  }
}
