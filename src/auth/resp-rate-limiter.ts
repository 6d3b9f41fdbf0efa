/**
 * @module auth/resp-rate-limiter
 * A rate-limiter-flexible limiter with its counts in Redis, spoken to through a roa
 * {@link RedisClient}: the failed-login throttle's store with the `resp` client (with node-redis the
 * library's own RateLimiterRedis counts). Built on the library's public extension point for
 * limiters of one's own (RateLimiterCompatibleAbstract); the same keys and values as
 * RateLimiterRedis (an integer with an expiry), so instances using either client share counts.
 * Insurance while Redis is away and deadlines come from wrapping it (RLWrapperTimeouts).
 */
import { RateLimiterCompatibleAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { redisScript, type RedisClient, type RedisReply } from '../redis/redis-client.js';

/**
 * Counts `points` into the key atomically and answers {consumed, ttl}. With `force`, the value is
 * set rather than added to (a block). A key without expiry gets the window's.
 */
const UPSERT = redisScript(`
local ms = tonumber(ARGV[2])
if ARGV[3] == '1' then
  if ms > 0 then redis.call('set', KEYS[1], ARGV[1], 'PX', ms) else redis.call('set', KEYS[1], ARGV[1]) end
  return {tonumber(ARGV[1]), redis.call('pttl', KEYS[1])}
end
if ms > 0 then redis.call('set', KEYS[1], 0, 'PX', ms, 'NX') end
local consumed = redis.call('incrby', KEYS[1], ARGV[1])
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 and ms > 0 then
  redis.call('pexpire', KEYS[1], ms)
  ttl = ms
end
return {consumed, ttl}`);

/** The key's {consumed, ttl}, or nil when it has none. */
const GET = redisScript(`
local consumed = redis.call('get', KEYS[1])
if not consumed then return nil end
return {tonumber(consumed), redis.call('pttl', KEYS[1])}`);

type Counted = { consumed: number; ttlMs: number };

function counted(reply: RedisReply): Counted | null {
  if (reply === null) return null;
  if (!Array.isArray(reply) || reply.length !== 2) throw new Error(`unexpected Redis reply to a count: ${JSON.stringify(reply)}`);
  return { consumed: Number(reply[0]), ttlMs: Number(reply[1]) };
}

export interface RespRateLimiterOptions {
  /** The connection the counts go through. */
  redis: RedisClient;
  /** Points per key within `duration`. */
  points: number;
  /** Window length in seconds (0: keys never expire). */
  duration: number;
  /** Prepended to every key, with a `:`. */
  keyPrefix: string;
}

/**
 * @example
 *   const limiter = new RespRateLimiter({ redis, points: 10, duration: 60, keyPrefix: 'roa:throttle:try' });
 *   await limiter.consume('user:ann|203.0.113.7');
 */
export class RespRateLimiter extends RateLimiterCompatibleAbstract {
  readonly points: number;
  readonly duration: number;
  readonly #redis: RedisClient;

  constructor(options: RespRateLimiterOptions) {
    super();
    this.points = options.points;
    this.duration = options.duration;
    this.#redis = options.redis;
    // The base class declares these as accessors that throw until a subclass provides them; own
    // data properties provide them. Blocking on refusal and even execution are not offered.
    Object.defineProperties(this, {
      keyPrefix: { value: options.keyPrefix, enumerable: true },
      blockDuration: { value: 0, writable: true, enumerable: true },
      execEvenly: { value: false, writable: true, enumerable: true },
    });
  }

  override async consume(key: string | number, points = 1): Promise<RateLimiterRes> {
    const res = await this.#count(key, points);
    if (res.consumedPoints > this.points) throw res;
    return res;
  }

  override penalty(key: string | number, points = 1): Promise<RateLimiterRes> {
    return this.#count(key, points);
  }

  override reward(key: string | number, points = 1): Promise<RateLimiterRes> {
    return this.#count(key, -points);
  }

  override async get(key: string | number): Promise<RateLimiterRes | null> {
    const c = counted(await this.#redis.runScript(GET, [this.#key(key)], []));
    return c === null ? null : this.#result(c, 0);
  }

  override set(key: string | number, points: number, secDuration: number): Promise<RateLimiterRes> {
    return this.#force(key, points, (secDuration >= 0 ? secDuration : this.duration) * 1000);
  }

  override block(key: string | number, secDuration: number): Promise<RateLimiterRes> {
    return this.#force(key, this.points + 1, secDuration * 1000);
  }

  override async delete(key: string | number): Promise<boolean> {
    return Number(await this.#redis.command(['DEL', this.#key(key)])) > 0;
  }

  #key(key: string | number): string {
    return this.keyPrefix.length > 0 ? `${this.keyPrefix}:${key}` : String(key);
  }

  async #count(key: string | number, points: number): Promise<RateLimiterRes> {
    if (!Number.isInteger(points)) throw new TypeError('RespRateLimiter counts whole points only');
    const reply = await this.#redis.runScript(UPSERT, [this.#key(key)], [String(points), String(Math.max(0, Math.floor(this.duration * 1000))), '0']);
    return this.#result(counted(reply)!, points);
  }

  async #force(key: string | number, points: number, ms: number): Promise<RateLimiterRes> {
    await this.#redis.runScript(UPSERT, [this.#key(key)], [String(points), String(Math.max(0, Math.floor(ms))), '1']);
    return new RateLimiterRes(0, ms > 0 ? ms : -1, points);
  }

  #result({ consumed, ttlMs }: Counted, changedPoints: number): RateLimiterRes {
    return new RateLimiterRes(Math.max(this.points - consumed, 0), ttlMs, consumed, consumed === changedPoints);
  }
}
