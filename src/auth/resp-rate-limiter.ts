/**
 * @module auth/resp-rate-limiter
 * rate-limiter-flexible's limiter with its counts in Redis, spoken to through roa's own RESP client
 * (auth/resp-pipeline) instead of node-redis. The library keeps every rule (points, blocks,
 * penalties, the in-memory insurance limiter while Redis is away); this module is only its storage,
 * by the library's documented extension point for custom stores (RateLimiterStoreAbstract).
 * Why not node-redis: loading it defines a String subclass, after which V8 runs string-heavy code in
 * the whole process markedly slower (bench/RESULTS.md, auth scenario), and the nonce store already
 * keeps a RESP connection open.
 */
import { createRequire } from 'node:module';
import type { IRateLimiterStoreOptions, RateLimiterRes as RateLimiterResType, RateLimiterStoreAbstract as StoreAbstract } from 'rate-limiter-flexible';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { RespPipeline, RespReply } from './resp-pipeline.js';

// The package's main file does not export the abstract store class its types declare; the class is
// the one its own Redis, SQL and Mongo stores extend.
const RateLimiterStoreAbstract = createRequire(import.meta.url)('rate-limiter-flexible/lib/RateLimiterStoreAbstract.js') as typeof StoreAbstract;

/**
 * Counts `points` into the key atomically and answers "consumed ttl" in one string (the RESP client
 * reads strings and integers; two values in one string keep it one round trip). With `force`, the
 * value is set rather than added to (a block). A key without expiry gets the window's.
 */
const UPSERT = `
local ms = tonumber(ARGV[2])
if ARGV[3] == '1' then
  if ms > 0 then redis.call('set', KEYS[1], ARGV[1], 'PX', ms) else redis.call('set', KEYS[1], ARGV[1]) end
  return ARGV[1] .. ' ' .. redis.call('pttl', KEYS[1])
end
if ms > 0 then redis.call('set', KEYS[1], 0, 'PX', ms, 'NX') end
local consumed = redis.call('incrby', KEYS[1], ARGV[1])
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 and ms > 0 then
  redis.call('pexpire', KEYS[1], ms)
  ttl = ms
end
return consumed .. ' ' .. ttl`;

/** The key's count and time to live as "consumed ttl", or nil when it has none. */
const GET = `
local consumed = redis.call('get', KEYS[1])
if not consumed then return nil end
return consumed .. ' ' .. redis.call('pttl', KEYS[1])`;

type Counted = [consumed: number, ttlMs: number];

function counted(reply: RespReply): Counted | null {
  if (reply === null) return null;
  const [consumed, ttl] = String(reply).split(' ');
  return [Number(consumed), Number(ttl)];
}

export interface RespRateLimiterOptions extends Omit<IRateLimiterStoreOptions, 'storeClient'> {
  /** The RESP connection the counts go through. */
  redis: RespPipeline;
}

/**
 * @example
 *   const limiter = new RespRateLimiter({ redis, points: 10, duration: 60, keyPrefix: 'roa:throttle:try', insuranceLimiter });
 *   await limiter.consume('user:ann|203.0.113.7');
 */
export class RespRateLimiter extends RateLimiterStoreAbstract {
  private readonly redis: RespPipeline;

  constructor(options: RespRateLimiterOptions) {
    const { redis, ...rest } = options;
    super({ ...rest, storeClient: redis });
    this.redis = redis;
  }

  _upsert(rlKey: string, points: number, msDuration: number, forceExpire = false): Promise<Counted | null> {
    if (!Number.isInteger(points)) return Promise.reject(new TypeError('RespRateLimiter counts whole points only'));
    return this.redis.command(['EVAL', UPSERT, '1', rlKey, String(points), String(Math.max(0, Math.floor(msDuration))), forceExpire ? '1' : '0']).then(counted);
  }

  _get(rlKey: string): Promise<Counted | null> {
    return this.redis.command(['EVAL', GET, '1', rlKey]).then(counted);
  }

  _delete(rlKey: string): Promise<boolean> {
    return this.redis.command(['DEL', rlKey]).then((n) => Number(n) > 0);
  }

  _getRateLimiterRes(_rlKey: string, changedPoints: number, result: Counted): RateLimiterResType {
    const [consumed, ttl] = result;
    return new RateLimiterRes(Math.max(this.points - consumed, 0), ttl, consumed, consumed === changedPoints);
  }
}
