/**
 * @module auth/redis-throttle
 * The failed-login throttle shared by every instance through Redis (rate-limiter-flexible's
 * RateLimiterRedis on node-redis), so guesses spread over N instances behind a balancer are still
 * capped at one limit, not N of them. Each count is one atomic INCRBY script in Redis: concurrent
 * attempts on any instance are counted before any is checked. While Redis cannot answer, the
 * instance's own in-memory limiters decide (rate-limiter-flexible's insurance limiter): guessing stays
 * throttled per instance, and logins are not refused because a counter is away.
 */
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { limiterOptions, LimiterThrottle, memoryLimiters, throttleSettings, type ThrottleLimiters, type ThrottleOptions } from './throttle.js';

// node-redis is loaded only when a Redis throttle is made: loading it slows unrelated code in the
// whole process (find-my-way's and roa's route lookups took twice as long), and most services
// run without Redis. It is CommonJS, so a synchronous require keeps the constructor synchronous.
const requireRedis = (): typeof import('redis') => createRequire(import.meta.url)('redis') as typeof import('redis');

export interface RedisThrottleOptions extends ThrottleOptions {
  /** Prepended to every key. Default `roa:throttle:`. */
  prefix?: string;
  /** Connect and per-command deadline (ms) before the local limiters answer instead. Default 1000. */
  commandTimeoutMs?: number;
}

/**
 * The throttle counted in Redis, with the instance's in-memory one as its fallback.
 * @example
 *   const throttle = new RedisFailureThrottle('redis://127.0.0.1:6379');
 *   createOAuthRouter({ store, issuer, throttle });
 */
export class RedisFailureThrottle extends LimiterThrottle {
  constructor(url: string, options: RedisThrottleOptions = {}) {
    const settings = throttleSettings(options);
    const prefix = (options.prefix ?? 'roa:throttle:').replace(/:$/, '');
    const timeout = options.commandTimeoutMs ?? 1000;
    const client = requireRedis().createClient({
      ...connectionOptions(url),
      // Nothing waits in an offline queue: while Redis is away the local limiters answer at once.
      disableOfflineQueue: true,
      socket: { ...unixSocket(url), connectTimeout: timeout, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) },
    });
    // Connection errors surface as refused commands (then the fallback); the client reconnects itself.
    client.on('error', () => {});
    // The first attempts wait for the first connection (bounded by connectTimeout), so a fresh
    // instance does not count them locally while Redis is about to answer.
    // node-redis retries a first connection by its reconnect strategy, so the wait has its own bound.
    const connected = Promise.race([client.connect().then(() => undefined, () => undefined), delay(timeout)]);
    const timed = client.withCommandOptions({ timeout });
    const local = memoryLimiters(settings, `${prefix}:local`);
    const o = limiterOptions(settings);
    const redis = (name: keyof ThrottleLimiters, key: string): RateLimiterRedis =>
      new RateLimiterRedis({ ...o[name], storeClient: timed, useRedisPackage: true, rejectIfRedisNotReady: true, keyPrefix: `${prefix}:${key}`, insuranceLimiter: local[name] });
    super({ pair: redis('pair', 'try'), source: redis('source', 'from'), locks: redis('locks', 'locks') }, settings, async () => {
      if (client.isReady) await client.close();
      else client.destroy();
    });
    this.connected = connected;
  }

  private readonly connected: Promise<void>;

  override async attempt(subject: string, source: string): Promise<number> {
    await this.connected;
    return super.attempt(subject, source);
  }

  override async succeeded(subject: string, source: string): Promise<void> {
    await this.connected;
    return super.succeeded(subject, source);
  }
}

/** Resolves after `ms` without holding the process open. */
function delay(ms: number): Promise<void> {
  return sleep(ms, undefined, { ref: false });
}

/**
 * node-redis reads redis:// and rediss:// URLs itself, but not the Unix-socket URLs roa documents
 * (`unix:///run/redis.sock?db=2&password=…`, also `redis+unix://`): those become a socket path, with
 * the credentials and database from the query, as the nonce store's client reads them.
 */
function connectionOptions(url: string): { url?: string; database?: number; username?: string; password?: string } {
  const parsed = new URL(url);
  if (!isUnix(parsed)) return { url };
  const q = parsed.searchParams;
  const db = q.get('db');
  if (db !== null && !/^\d+$/.test(db)) throw new TypeError(`Redis database must be a number, got ${JSON.stringify(db)}`);
  return {
    ...(db !== null ? { database: Number(db) } : {}),
    ...(q.get('username') !== null ? { username: q.get('username')! } : {}),
    ...(q.get('password') !== null ? { password: q.get('password')! } : {}),
  };
}

function unixSocket(url: string): { path: string } | Record<string, never> {
  const parsed = new URL(url);
  if (!isUnix(parsed)) return {};
  if (parsed.pathname === '') throw new TypeError('a unix:// Redis URL needs the socket path: unix:///run/redis/redis.sock');
  return { path: decodeURIComponent(parsed.pathname) };
}

function isUnix(url: URL): boolean {
  return url.protocol === 'unix:' || url.protocol === 'redis+unix:';
}
