/**
 * @module storage/sqlite/nonce-fingerprints
 * The in-memory index of live nonces: 64-bit keyed fingerprints with their expiry, in typed arrays.
 *
 * Why not a Map of key strings: every nonce is a fresh string that the Map keeps for ten minutes,
 * so each one is promoted through the young generation, tracked by the write barrier, and reached
 * through a chain of heap objects on every lookup; the garbage collection that causes costs more
 * per request than the SQLite transaction. Here a nonce is 16 bytes in three typed arrays, found
 * with one probe sequence, and the strings die young.
 *
 * Exactness: a replayed key always has the same fingerprint, so a replay is always found while it
 * lives. Two different keys with one fingerprint (2^-64 per pair) would make a fresh nonce look
 * used: it is refused, never accepted, which is the side a replay check may err on.
 *
 * The hash is keyed with a random seed (per process, or the one a database keeps so that every
 * connection to it fingerprints alike), so a client cannot aim its nonces at one slot; a probe is
 * still capped (`MAX_PROBE`), and a key the table cannot place goes to the caller's exact fallback
 * instead.
 */
import { randomBytes } from 'node:crypto';

/** Longest probe sequence; past it a key is "no room" (the caller falls back to its exact table). */
const MAX_PROBE = 64;
const MIN_CAPACITY = 1024;
/** A slot whose expiry is this is free and ends a probe; any other expiry at or before now is reusable. */
const EMPTY = 0;
/** Expiry written over a removed entry: in the past for any clock, but not EMPTY, so probes go on past it. */
const REMOVED = 1;
/** A purge that found nothing to free is not repeated for this long (a table full of live nonces). */
const FRUITLESS_PURGE_PAUSE_MS = 1000;

/** Where a key's fingerprint is: the slot holding it, or -1 with the slot an insert would use (or -1 if none). */
interface Probe {
  found: number;
  free: number;
}

export class NonceFingerprints {
  private readonly seedA: number;
  private readonly seedB: number;
  private capacity = MIN_CAPACITY;
  private mask = MIN_CAPACITY - 1;
  private hashA = new Int32Array(MIN_CAPACITY);
  private hashB = new Int32Array(MIN_CAPACITY);
  /** Expiry in ms epoch; EMPTY for a slot never used since the last rebuild. */
  private expiry = new Float64Array(MIN_CAPACITY);
  /** Slots not EMPTY (live, expired, or removed): bounded by `limit`, reset by a rebuild. */
  private used = 0;
  private noPurgeUntil = 0;
  /** Counts rebuilds, so a caller holding a probe result knows it went stale. */
  private generation = 0;
  // The last key's fingerprint and probe, shared between `hash`, `probe` and the public methods.
  private a = 0;
  private b = 0;
  private readonly at: Probe = { found: -1, free: -1 };

  /**
   * @param limit most fingerprints held at once (live or awaiting reuse).
   * @param seed 8 bytes keying the hash; random when not given.
   */
  constructor(
    private readonly limit: number,
    seed: Uint8Array = randomBytes(8),
  ) {
    if (seed.length !== 8) throw new RangeError(`NonceFingerprints: the seed must be 8 bytes, got ${seed.length}`);
    const view = new DataView(seed.buffer, seed.byteOffset, 8);
    this.seedA = view.getInt32(0, true);
    this.seedB = view.getInt32(4, true);
  }

  /** True when `key` is recorded and still live at `now`. Its fingerprint and probe are kept for `addLast`. */
  has(key: string, now: number): boolean {
    this.hash(key);
    this.probe(now);
    return this.at.found !== -1;
  }

  /** The two halves of the fingerprint of the key last passed to `has`, `remember` or `forget`. */
  get lastA(): number {
    return this.a;
  }
  get lastB(): number {
    return this.b;
  }

  /**
   * Records the key of the `has` call just before (which answered false) until `expiresAtMs`. False
   * when there is no room (the limit is reached with live nonces, or the probe cap): the caller then
   * records it elsewhere.
   */
  addLast(expiresAtMs: number, now: number): boolean {
    // An expired or removed slot on the way is reused as it is; only an EMPTY one adds to `used`.
    if (this.at.free === -1 || this.expiry[this.at.free] === EMPTY) {
      const generation = this.generation;
      if (!this.roomForOneMore(now)) return false;
      // A rebuild moved every fingerprint: probe again.
      if (generation !== this.generation) this.probe(now);
      if (this.at.free === -1) return false;
    }
    const slot = this.at.free;
    if (this.expiry[slot] === EMPTY) this.used++;
    this.hashA[slot] = this.a;
    this.hashB[slot] = this.b;
    this.expiry[slot] = expiresAtMs;
    return true;
  }

  /** Records `key` until `expiresAtMs`, or extends a shorter live record of it; false when there is no room. */
  remember(key: string, expiresAtMs: number, now: number): boolean {
    this.hash(key);
    return this.rememberLast(expiresAtMs, now);
  }

  /** `remember` for a fingerprint read back from elsewhere (another connection's log row), not a key. */
  rememberFingerprint(a: number, b: number, expiresAtMs: number, now: number): boolean {
    this.a = a | 0;
    this.b = b | 0;
    return this.rememberLast(expiresAtMs, now);
  }

  /** `remember` for the fingerprint in `a`/`b`. */
  private rememberLast(expiresAtMs: number, now: number): boolean {
    this.probe(now);
    if (this.at.found === -1) return this.addLast(expiresAtMs, now);
    if (this.expiry[this.at.found]! < expiresAtMs) this.expiry[this.at.found] = expiresAtMs;
    return true;
  }

  /** Forgets `key` (a batch whose transaction rolled back). */
  forget(key: string, now: number): void {
    this.hash(key);
    this.probe(now);
    if (this.at.found !== -1) this.expiry[this.at.found] = REMOVED;
  }

  /** Live fingerprints at `now` (a scan: for tests and diagnostics). */
  liveCount(now: number): number {
    let n = 0;
    for (let i = 0; i < this.capacity; i++) if (this.expiry[i]! > now) n++;
    return n;
  }

  /**
   * True when one more slot may be taken: under the limit and at most half full, after rebuilding
   * (bigger, or just without the expired) when needed.
   */
  private roomForOneMore(now: number): boolean {
    if (this.used < this.limit && this.used < this.capacity >>> 1) return true;
    if (now < this.noPurgeUntil && this.used >= this.limit) return false;
    const live = this.liveCount(now);
    if (live >= this.limit) {
      this.noPurgeUntil = now + FRUITLESS_PURGE_PAUSE_MS;
      return false;
    }
    // Room for twice the live entries, so the next rebuild is as far away as this one was.
    // (Past twice the limit there is no need: `used` never passes the limit.)
    let capacity = MIN_CAPACITY;
    while (capacity < 4 * (live + 1) && capacity < 2 * this.limit) capacity *= 2;
    this.rebuild(capacity, now);
    return this.used < this.limit && this.used < this.capacity >>> 1;
  }

  /** Moves the live fingerprints into fresh arrays of `capacity` slots; a doubling if one cannot be placed. */
  private rebuild(capacity: number, now: number): void {
    const [oldA, oldB, oldExpiry, oldCapacity] = [this.hashA, this.hashB, this.expiry, this.capacity];
    // The fingerprint being added is set aside: placing the old ones goes through `a` and `b`.
    const [a, b] = [this.a, this.b];
    this.generation++;
    for (;;) {
      this.capacity = capacity;
      this.mask = capacity - 1;
      this.hashA = new Int32Array(capacity);
      this.hashB = new Int32Array(capacity);
      this.expiry = new Float64Array(capacity);
      this.used = 0;
      let placed = true;
      for (let i = 0; i < oldCapacity && placed; i++) {
        if (!(oldExpiry[i]! > now)) continue;
        this.a = oldA[i]!;
        this.b = oldB[i]!;
        this.probe(now);
        if (this.at.free === -1) placed = false;
        else {
          this.hashA[this.at.free] = this.a;
          this.hashB[this.at.free] = this.b;
          this.expiry[this.at.free] = oldExpiry[i]!;
          this.used++;
        }
      }
      if (placed) break;
      capacity *= 2;
    }
    this.a = a;
    this.b = b;
  }

  /**
   * Sets `at` for the fingerprint in `a`/`b`: the slot holding it live, and the first reusable slot
   * on its probe sequence (an expired or removed one, else the EMPTY slot that ends it).
   */
  private probe(now: number): void {
    const at = this.at;
    at.found = -1;
    at.free = -1;
    let slot = this.a & this.mask;
    for (let i = 0; i < MAX_PROBE; i++, slot = (slot + 1) & this.mask) {
      const expires = this.expiry[slot]!;
      if (expires === EMPTY) {
        if (at.free === -1) at.free = slot;
        return;
      }
      if (expires > now) {
        if (this.hashA[slot] === this.a && this.hashB[slot] === this.b) {
          at.found = slot;
          return;
        }
      } else if (at.free === -1) {
        at.free = slot;
      }
    }
  }

  /**
   * Two independent 32-bit lanes over the key's UTF-16 code units, each seeded at random and
   * finished with MurmurHash3's fmix32 avalanche; sets `a` and `b`.
   */
  private hash(key: string): void {
    let a = this.seedA;
    let b = this.seedB ^ key.length;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b + c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    a ^= a >>> 16;
    a = Math.imul(a, 0x85ebca6b);
    a ^= a >>> 13;
    a = Math.imul(a, 0xc2b2ae35);
    a ^= a >>> 16;
    b ^= b >>> 16;
    b = Math.imul(b, 0x85ebca6b);
    b ^= b >>> 13;
    b = Math.imul(b, 0xc2b2ae35);
    b ^= b >>> 16;
    this.a = a;
    this.b = b;
  }
}
