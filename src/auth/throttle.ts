/**
 * @module auth/throttle
 * The failed-login throttle: every attempt at a password or client secret is counted *before* it is
 * checked, per credential (`user:<name>`, `client:<id>`) and source address, on rate-limiter-flexible
 * (in memory here; in Redis through auth/redis-throttle). See README "Authentication" for the policy.
 */
import { RateLimiterRes, type RateLimiterCompatibleAbstract } from 'rate-limiter-flexible';
import { BoundedRateLimiterMemory, DEFAULT_MAX_KEYS } from './bounded-memory-limiter.js';

/**
 * What the schemes and the token endpoint need of a throttle.
 * @example
 *   const wait = await throttle.attempt('user:ann', '203.0.113.7');
 *   if (wait > 0) return tooMany(wait);        // nothing was checked
 *   if (await check()) await throttle.succeeded('user:ann', '203.0.113.7');
 */
export interface AttemptThrottle {
  /**
   * Counts one attempt at `subject`'s credential from `source`, atomically, before it is checked: 0
   * when it may be checked, else the seconds to wait (and it must not be checked). Concurrent calls
   * can never let more than the limit through in one window.
   */
  attempt(subject: string, source: string): Promise<number>;
  /** The attempt was right: gives back its own count only, never the failures that raced with it. */
  succeeded(subject: string, source: string): Promise<void>;
  close?(): Promise<void>;
}

export interface ThrottleOptions {
  /** Attempts per credential and source address within a window. Default 10. */
  limit?: number;
  /** Window length (ms), whole seconds (rate-limiter-flexible and Redis count in seconds). Default 60 000. */
  windowMs?: number;
  /** Attempts per source address at any credentials within a window (password spraying). Default 10 × limit. */
  sourceLimit?: number;
  /** Longest lock: each lock of a credential at one address doubles the one before, up to this (ms). Default 1 hour. */
  maxLockMs?: number;
  /**
   * Keys each in-memory key space holds (per credential and source, per source, lock history); past
   * it the expired and empty go first, locks last (auth/bounded-memory-limiter). Default 100,000.
   * Redis holds its own keys until they expire; this bounds its in-memory stand-in too.
   */
  maxKeys?: number;
}

export const DEFAULT_THROTTLE_LIMIT = 10;
export const DEFAULT_THROTTLE_WINDOW_MS = 60_000;
const DEFAULT_MAX_LOCK_MS = 3_600_000;
/** How long the number of past locks of a credential at one address is remembered (the backoff's memory). */
const LOCK_MEMORY_S = 24 * 3600;

/** What the throttle calls on a limiter: any rate-limiter-flexible limiter, or one of roa's. */
export type ThrottleLimiter = Pick<RateLimiterCompatibleAbstract, 'consume' | 'reward' | 'penalty' | 'block' | 'delete'>;

/** The limiters a throttle counts with: one kind (memory or Redis), three key spaces. */
export interface ThrottleLimiters {
  /** Attempts per credential and source, `limit` per window. */
  pair: ThrottleLimiter;
  /** Attempts per source, `sourceLimit` per window. */
  source: ThrottleLimiter;
  /** Locks per credential and source, remembered LOCK_MEMORY_S. */
  locks: ThrottleLimiter;
}

/** The options with defaults, checked once (bad configuration fails at construction). */
export function throttleSettings(options: ThrottleOptions): Required<ThrottleOptions> {
  const limit = options.limit ?? DEFAULT_THROTTLE_LIMIT;
  const windowMs = options.windowMs ?? DEFAULT_THROTTLE_WINDOW_MS;
  const sourceLimit = options.sourceLimit ?? 10 * limit;
  const maxLockMs = options.maxLockMs ?? DEFAULT_MAX_LOCK_MS;
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(sourceLimit) || sourceLimit < limit) {
    throw new RangeError('throttle: limit must be a positive integer and sourceLimit at least limit');
  }
  if (!Number.isInteger(windowMs / 1000) || windowMs < 1000 || !(maxLockMs >= windowMs)) {
    throw new RangeError('throttle: windowMs must be whole seconds (at least 1000) and maxLockMs at least windowMs');
  }
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('throttle: maxKeys must be a positive integer');
  return { limit, windowMs, sourceLimit, maxLockMs, maxKeys };
}

/** The limiter options of each key space, for any rate-limiter-flexible store. */
export function limiterOptions(s: Required<ThrottleOptions>): Record<keyof ThrottleLimiters, { points: number; duration: number }> {
  const duration = s.windowMs / 1000;
  return {
    pair: { points: s.limit, duration },
    source: { points: s.sourceLimit, duration },
    locks: { points: Number.MAX_SAFE_INTEGER, duration: LOCK_MEMORY_S },
  };
}

/**
 * The throttle on any rate-limiter-flexible limiters. An attempt consumes a point of its
 * (credential, source) key and of its source key before the check; a success rewards its own points.
 * The first refusal of a window locks that pair for twice as long as its previous lock (exponential
 * backoff), so a guesser at one address slows down ever more, while the same user at another
 * address is not affected.
 */
export class LimiterThrottle implements AttemptThrottle {
  constructor(
    private readonly limiters: ThrottleLimiters,
    private readonly settings: Required<ThrottleOptions>,
    private readonly onClose: () => Promise<void> = async () => {},
  ) {}

  async attempt(subject: string, source: string): Promise<number> {
    const pair = pairKey(subject, source);
    try {
      await this.limiters.pair.consume(pair);
    } catch (refusal) {
      return this.refused(refusal, pair);
    }
    try {
      await this.limiters.source.consume(source);
    } catch (refusal) {
      // Not checked after all: the pair's point goes back (the source's count did the refusing).
      await this.limiters.pair.reward(pair);
      return secondsOf(refusal);
    }
    return 0;
  }

  async succeeded(subject: string, source: string): Promise<void> {
    const pair = pairKey(subject, source);
    await Promise.all([this.limiters.pair.reward(pair), this.limiters.source.reward(source), this.limiters.locks.delete(pair)]);
  }

  close(): Promise<void> {
    return this.onClose();
  }

  /** The wait for a refused attempt; the window's first refusal sets the pair's backoff lock. */
  private async refused(refusal: unknown, pair: string): Promise<number> {
    if (!(refusal instanceof RateLimiterRes)) throw refusal;
    // Counters are incremented atomically, so exactly one refusal per window sees limit + 1.
    if (refusal.consumedPoints !== this.settings.limit + 1) return secondsOf(refusal);
    const locks = (await this.limiters.locks.penalty(pair)).consumedPoints;
    if (locks <= 1) return secondsOf(refusal);
    const lockMs = Math.min(this.settings.windowMs * 2 ** Math.min(locks - 1, 30), this.settings.maxLockMs);
    await this.limiters.pair.block(pair, lockMs / 1000);
    return Math.ceil(lockMs / 1000);
  }
}

/** The key of one credential at one source; sources (addresses) hold no `|`, so the split is unique. */
function pairKey(subject: string, source: string): string {
  return `${subject}|${source}`;
}

function secondsOf(refusal: unknown): number {
  if (!(refusal instanceof RateLimiterRes)) throw refusal;
  return Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
}

/**
 * The in-memory limiters (one process), also the fallback of the Redis ones while Redis is away;
 * each holds at most `maxKeys` keys.
 */
export function memoryLimiters(settings: Required<ThrottleOptions>, keyPrefix = 'roa-throttle'): Record<keyof ThrottleLimiters, BoundedRateLimiterMemory> {
  const o = limiterOptions(settings);
  const { maxKeys } = settings;
  return {
    pair: new BoundedRateLimiterMemory({ ...o.pair, maxKeys, keyPrefix: `${keyPrefix}:try` }),
    source: new BoundedRateLimiterMemory({ ...o.source, maxKeys, keyPrefix: `${keyPrefix}:from` }),
    locks: new BoundedRateLimiterMemory({ ...o.locks, maxKeys, keyPrefix: `${keyPrefix}:locks` }),
  };
}

/**
 * The throttle in this process's memory.
 * @example
 *   const throttle = new FailureThrottle({ limit: 10, windowMs: 60_000 });
 *   new BasicScheme({ store, throttle });
 */
export class FailureThrottle extends LimiterThrottle {
  constructor(options: ThrottleOptions = {}) {
    const settings = throttleSettings(options);
    super(memoryLimiters(settings), settings);
  }
}
