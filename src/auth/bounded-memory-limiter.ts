/**
 * @module auth/bounded-memory-limiter
 * rate-limiter-flexible's RateLimiterMemory holding at most `maxKeys` keys. The library's memory
 * store grows with every distinct key until each key's window ends (one timer per key), so guesses
 * at many distinct credential/address pairs could grow the failed-login throttle without bound.
 */
import { RateLimiterMemory, RateLimiterRes, type IRateLimiterOptions } from 'rate-limiter-flexible';

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
 * The store behind the limiter: the same four operations as the library's MemoryStorage, with
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

export interface BoundedLimiterOptions extends IRateLimiterOptions {
  /** Most keys held (default {@link DEFAULT_MAX_KEYS}). */
  maxKeys?: number;
  /** The clock (tests). */
  now?: () => number;
}

/**
 * RateLimiterMemory on a {@link BoundedMemoryStorage}; a key is locked when it has consumed more
 * than `points`.
 * @example
 *   const limiter = new BoundedRateLimiterMemory({ points: 10, duration: 60, maxKeys: 100_000 });
 *   await limiter.consume('user:ann|203.0.113.7');
 */
export class BoundedRateLimiterMemory extends RateLimiterMemory {
  readonly #storage: BoundedMemoryStorage;

  constructor(options: BoundedLimiterOptions) {
    const { maxKeys = DEFAULT_MAX_KEYS, now, ...limiterOptions } = options;
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
    super(limiterOptions);
    // RateLimiterMemory keeps its store in this field and calls only incrby/set/get/delete on it
    // (checked by test/auth/bounded-memory-limiter); fail loudly should a new version move it.
    const self = this as unknown as { _memoryStorage?: unknown };
    if (typeof self._memoryStorage !== 'object' || self._memoryStorage === null) {
      throw new Error('rate-limiter-flexible no longer keeps RateLimiterMemory._memoryStorage: update auth/bounded-memory-limiter');
    }
    this.#storage = new BoundedMemoryStorage(maxKeys, this.points, now);
    self._memoryStorage = this.#storage;
  }

  /** Keys held now. */
  get size(): number {
    return this.#storage.size;
  }

  /** Not supported: the library's dump reads its own store's internals. */
  override dump(): never {
    throw new Error('BoundedRateLimiterMemory cannot dump');
  }

  /** Not supported: the library's restore writes its own store's internals. */
  override restore(): never {
    throw new Error('BoundedRateLimiterMemory cannot restore');
  }
}
