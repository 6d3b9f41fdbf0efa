/**
 * @module auth/bounded-memory-limiter
 * An in-memory rate limiter holding at most `maxKeys` keys, with RateLimiterMemory's rules. The
 * library's memory store grows with every distinct key until each key's window ends (one timer per
 * key), so guesses at many distinct credential/address pairs could grow the failed-login throttle
 * without bound. Built on the library's public extension point for limiters of one's own
 * (RateLimiterCompatibleAbstract), so it also serves as a Redis limiter's insurance.
 */
import { RateLimiterCompatibleAbstract, RateLimiterRes, type IRateLimiterOptions } from 'rate-limiter-flexible';

/**
 * Keys a bounded limiter holds by default. A key takes ~350 bytes (its string, the Map slot, the
 * entry; the library's store takes ~600 with its timer), so a full key space is ~35 MB. Fewer keys
 * would make a counter easier to push out (see BoundedMemoryStorage).
 */
export const DEFAULT_MAX_KEYS = 100_000;

interface Entry {
  value: number;
  /** Epoch ms; Infinity when the key never expires. */
  expiresAt: number;
}

/**
 * The store behind the limiter: the four operations of the library's MemoryStorage, with
 * expiry checked on access instead of a timer per key (the bound caps what lingers), and room made
 * before a new key would pass `maxKeys`.
 *
 * Which keys go when room is needed decides what flooding buys an attacker, so they go in this order:
 * 1. expired ones: they mean nothing any more;
 * 2. empty ones (nothing counted, e.g. an attempt given back after a success or a refusal elsewhere):
 *    forgetting them loses nothing; a flood of attempts that some other limit refuses creates only these;
 * 3. counting but not locked ones (value ≤ `lockedAbove`), oldest first: with one window per key
 *    space, the oldest is the nearest to its reset anyway, and forgetting it gives back at most one
 *    window's attempts at one credential and address;
 * 4. locked ones (value > `lockedAbove`), oldest first, only when nothing else is left.
 * So an attacker cannot clear his own lock by flooding unless he fills the whole table with locks of
 * his own, which takes `maxKeys` × (limit + 1) attempts that passed the per-address cap, i.e. many
 * addresses; and a counter that counts is pushed out only by counters that count, never by refused
 * junk. The price: under such a flood the oldest counters of honest pairs may be forgotten early (a
 * few more guesses for someone), rather than the process's memory growing until it fails.
 * Room is made for a tenth of `maxKeys` at a time, so the scan is amortised to O(1) per new key.
 */
export class BoundedMemoryStorage {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly maxKeys: number,
    private readonly lockedAbove: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keys held now, expired ones not yet dropped included (never more than `maxKeys`). */
  get size(): number {
    return this.#entries.size;
  }

  incrby(key: string, value: number, durationSec: number): RateLimiterRes {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      const left = entry.expiresAt - this.now();
      if (left > 0) {
        entry.value += value;
        return new RateLimiterRes(0, left === Infinity ? -1 : left, entry.value, false);
      }
    }
    return this.set(key, value, durationSec);
  }

  set(key: string, value: number, durationSec: number): RateLimiterRes {
    const durationMs = durationSec * 1000;
    // Re-inserted, so the Map's order stays the order in which windows and locks began.
    if (!this.#entries.delete(key) && this.#entries.size >= this.maxKeys) this.makeRoom();
    this.#entries.set(key, { value, expiresAt: durationMs > 0 ? this.now() + durationMs : Infinity });
    return new RateLimiterRes(0, durationMs > 0 ? durationMs : -1, value, true);
  }

  get(key: string): RateLimiterRes | null {
    const entry = this.#entries.get(key);
    if (entry === undefined) return null;
    const left = entry.expiresAt - this.now();
    if (left <= 0) {
      this.#entries.delete(key);
      return null;
    }
    return new RateLimiterRes(0, left === Infinity ? -1 : left, entry.value, false);
  }

  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  /** Drops every expired key, then the fewest of the others, in the order above, to free a tenth. */
  private makeRoom(): void {
    const want = Math.max(1, Math.floor(this.maxKeys / 10));
    const now = this.now();
    let freed = 0;
    const empty: string[] = [];
    const counting: string[] = [];
    const locked: string[] = [];
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) {
        this.#entries.delete(key);
        freed++;
        continue;
      }
      const bucket = entry.value <= 0 ? empty : entry.value <= this.lockedAbove ? counting : locked;
      if (bucket.length < want) bucket.push(key);
    }
    for (const bucket of [empty, counting, locked]) {
      for (const key of bucket) {
        if (freed >= want) return;
        this.#entries.delete(key);
        freed++;
      }
    }
  }
}

export interface BoundedLimiterOptions extends Pick<IRateLimiterOptions, 'points' | 'duration' | 'keyPrefix' | 'blockDuration'> {
  /** Most keys held (default {@link DEFAULT_MAX_KEYS}). */
  maxKeys?: number;
  /** The clock (tests). */
  now?: () => number;
}

/**
 * RateLimiterMemory's counting (points per `duration` seconds per key; a refusal when more than
 * `points` were consumed; `blockDuration` seconds of block on the first refusal when set; no
 * `execEvenly` delays) on a
 * {@link BoundedMemoryStorage}; a key is locked when it has consumed more than `points`.
 * @example
 *   const limiter = new BoundedRateLimiterMemory({ points: 10, duration: 60, maxKeys: 100_000 });
 *   await limiter.consume('user:ann|203.0.113.7');
 */
export class BoundedRateLimiterMemory extends RateLimiterCompatibleAbstract {
  readonly points: number;
  readonly duration: number;
  readonly #storage: BoundedMemoryStorage;

  constructor(options: BoundedLimiterOptions) {
    super();
    const { maxKeys = DEFAULT_MAX_KEYS, now, points = 4, duration = 1, keyPrefix = 'rlflx', blockDuration = 0 } = options;
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
    if (!(points >= 0) || !(duration >= 0)) throw new RangeError('points and duration must be non-negative numbers');
    this.points = points;
    this.duration = duration;
    // The base class declares these as accessors that throw until a subclass provides them; own
    // data properties provide them (a Redis limiter sets blockDuration and execEvenly on its insurance).
    Object.defineProperties(this, {
      keyPrefix: { value: keyPrefix, enumerable: true },
      blockDuration: { value: blockDuration, writable: true, enumerable: true },
      execEvenly: { value: false, writable: true, enumerable: true },
    });
    this.#storage = new BoundedMemoryStorage(maxKeys, points, now);
  }

  /** Keys held now. */
  get size(): number {
    return this.#storage.size;
  }

  override consume(key: string | number, points = 1): Promise<RateLimiterRes> {
    let res = this.#count(key, points);
    if (res.consumedPoints <= this.points) return Promise.resolve(res);
    // As RateLimiterMemory: the first refusal of a window blocks the key when blockDuration is set.
    if (this.blockDuration > 0 && res.consumedPoints <= this.points + points) {
      res = this.#result(this.#storage.set(String(key), res.consumedPoints, this.blockDuration));
    }
    return Promise.reject(res);
  }

  override penalty(key: string | number, points = 1): Promise<RateLimiterRes> {
    return Promise.resolve(this.#count(key, points));
  }

  override reward(key: string | number, points = 1): Promise<RateLimiterRes> {
    return Promise.resolve(this.#count(key, -points));
  }

  override get(key: string | number): Promise<RateLimiterRes | null> {
    const res = this.#storage.get(String(key));
    return Promise.resolve(res === null ? null : this.#result(res));
  }

  override set(key: string | number, points: number, secDuration: number): Promise<RateLimiterRes> {
    return Promise.resolve(this.#result(this.#storage.set(String(key), points, secDuration >= 0 ? secDuration : this.duration)));
  }

  /** Refuses the key for `secDuration` seconds (0: until deleted). */
  override block(key: string | number, secDuration: number): Promise<RateLimiterRes> {
    return Promise.resolve(this.#result(this.#storage.set(String(key), this.points + 1, secDuration)));
  }

  override delete(key: string | number): Promise<boolean> {
    return Promise.resolve(this.#storage.delete(String(key)));
  }

  /** Not supported: there is nothing the library's restore could read back. */
  dump(): never {
    throw new Error('BoundedRateLimiterMemory cannot dump');
  }

  /** Not supported (see dump). */
  restore(): never {
    throw new Error('BoundedRateLimiterMemory cannot restore');
  }

  #count(key: string | number, points: number): RateLimiterRes {
    return this.#result(this.#storage.incrby(String(key), points, this.duration));
  }

  #result(res: RateLimiterRes): RateLimiterRes {
    return new RateLimiterRes(Math.max(this.points - res.consumedPoints, 0), res.msBeforeNext, res.consumedPoints, res.isFirstInDuration);
  }
}
