/** @module auth/throttle An in-memory sliding-window counter of failed attempts (per client id or user name). */

/**
 * What the token endpoint needs of a throttle: `FailureThrottle` in one process's memory, or
 * `RedisFailureThrottle` (auth/redis-throttle) shared by every instance.
 */
export interface AttemptThrottle {
  /** Seconds until another attempt is allowed; 0 when allowed now. */
  retryAfter(key: string): number | Promise<number>;
  /** Counts one failed attempt. */
  fail(key: string): void | Promise<void>;
  /** Forgets a key's failures (after a success). */
  reset(key: string): void | Promise<void>;
  close?(): Promise<void>;
}

export interface ThrottleOptions {
  /** Failures allowed within the window. Default 10. */
  limit?: number;
  /** Window length (ms). Default 60 000. */
  windowMs?: number;
  /** Most keys tracked; the least recently failed is forgotten first. Default 10 000. */
  maxKeys?: number;
  now?: () => number;
}

export const DEFAULT_THROTTLE_LIMIT = 10;
export const DEFAULT_THROTTLE_WINDOW_MS = 60_000;

/**
 * Counts failures per key over a sliding window. `retryAfter(key)` > 0 means refuse before even checking
 * the credential, so guessing is capped at `limit` tries per window.
 * @example
 *   const t = new FailureThrottle({ limit: 10, windowMs: 60_000 });
 *   if (t.retryAfter(id) > 0) return tooMany();
 *   if (!ok) t.fail(id);
 */
export class FailureThrottle implements AttemptThrottle {
  private readonly hits = new Map<string, number[]>();
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(options: ThrottleOptions = {}) {
    this.limit = options.limit ?? DEFAULT_THROTTLE_LIMIT;
    this.windowMs = options.windowMs ?? DEFAULT_THROTTLE_WINDOW_MS;
    this.maxKeys = options.maxKeys ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Seconds until another attempt is allowed; 0 when allowed now. */
  retryAfter(key: string): number {
    const list = this.recent(key);
    if (list.length < this.limit) return 0;
    return Math.max(1, Math.ceil((list[list.length - this.limit]! + this.windowMs - this.now()) / 1000));
  }

  fail(key: string): void {
    const list = this.recent(key);
    list.push(this.now());
    this.hits.delete(key);
    while (this.hits.size >= this.maxKeys) this.hits.delete(this.hits.keys().next().value as string);
    this.hits.set(key, list.slice(-this.limit));
  }

  /** Forgets a key's failures (after a success). */
  reset(key: string): void {
    this.hits.delete(key);
  }

  private recent(key: string): number[] {
    const list = this.hits.get(key);
    if (list === undefined) return [];
    const cutoff = this.now() - this.windowMs;
    return list.filter((t) => t > cutoff);
  }
}
