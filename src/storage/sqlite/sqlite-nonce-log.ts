/**
 * @module storage/sqlite/sqlite-nonce-log
 * Replay-protection nonces on SQLite as an append-only log on disk, indexed in memory: the opt-in
 * for very high signed-request rates (`SqliteNonceTable` is the default).
 *
 * Why a log: nonces are random, so in a table keyed by nonce each one lands on its own page of the
 * B-tree and every commit rewrites those pages into the WAL. Appending in arrival order touches only
 * the last page; the question "seen before?" is answered from memory.
 *
 * Exact across processes sharing the file: every batch runs in an IMMEDIATE transaction (the write
 * lock), reads the rows other connections appended since its last look, and only then decides. The
 * log survives restarts: a new connection reads it back before its first decision.
 *
 * The log holds fingerprints, not nonces: each batch's fresh nonces go into one row as 16 bytes each
 * (the 64-bit fingerprint of `nonce-fingerprints`, keyed by the seed the database keeps in
 * `nonce_seed` so every connection hashes alike, and the expiry), so a batch's row stays within a
 * page or two and a commit appends few WAL frames.
 *
 * Memory is bounded (`memoryLimit` nonces, 16 bytes each in `nonce-fingerprints`); past it, nonces
 * go to the key-ordered `nonces` table instead (by key, or, when read back from the log, by
 * fingerprint), slower but exact, and every decision also consults that table while it has rows,
 * which keeps refused what a store without the log (`SqliteNonceTable`) recorded there.
 */
import type { Database as Db, Statement } from 'better-sqlite3';
import { NonceFingerprints } from './nonce-fingerprints.js';
import { DEFAULT_NONCE_MEMORY_LIMIT, type NonceRequest, type SqliteNonces } from './sqlite-nonces.js';

/** The disk sweep runs at most this often, and looks at least this many log rows each time. */
const SWEEP_INTERVAL_MS = 1000;
const SWEEP_MIN_ROWS = 10_000;
/**
 * A log row's `key` is a blob: this format byte, then per nonce its fingerprint (two int32) and its
 * expiry (float64 ms epoch), little-endian; the row's `expires_at` is the latest expiry, which is
 * what the sweep looks at.
 */
const FINGERPRINT_ROW = 1;
const ENTRY_BYTES = 16;
/** The key-ordered overflow table is pruned at most this often. */
const OVERFLOW_PRUNE_INTERVAL_MS = 60_000;

interface LogRow {
  id: number;
  key: string | Buffer;
  expires_at: number;
}

/**
 * The `nonces` row of a fingerprint read back from the log when memory has no room for it: this prefix
 * and 16 hex digits (a caller's key that happened to look alike could only be refused, never accepted).
 */
const FINGERPRINT_KEY_PREFIX = '\0fp:';
/** Just past every fingerprint row, in key order. */
const FINGERPRINT_KEY_END = '\0fp;';
function fingerprintKey(a: number, b: number): string {
  return FINGERPRINT_KEY_PREFIX + (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

export class SqliteNonceLog implements SqliteNonces {
  /** Live nonces, as fingerprints: "seen before?" is answered here. */
  private readonly live: NonceFingerprints;
  /** The clock of the latest decision, for `size`. */
  private lastNow = 0;
  /** Highest log id this connection has read or written. */
  private seenId = 0;
  private sweepFrom = 0;
  private lastSweep = 0;
  private idAtLastSweep = 0;
  private lastOverflowPrune = 0;
  private readonly st: Record<'tail' | 'append' | 'sweep' | 'overflowState' | 'overflowLive' | 'overflowUpsert' | 'overflowPrune', Statement>;
  /** Whether the overflow table holds fingerprint rows, as the current batch found it after reading the log. */
  private fingerprintsOverflowed = false;
  /** The row being built by a batch: FINGERPRINT_ROW, then its entries. */
  private row = Buffer.alloc(1 + 64 * ENTRY_BYTES, FINGERPRINT_ROW);
  private readonly decideTx: (batch: readonly NonceRequest[], now: number, added: string[]) => boolean[];

  constructor(
    db: Db,
    memoryLimit = DEFAULT_NONCE_MEMORY_LIMIT,
  ) {
    const seeded = db.prepare('SELECT seed FROM nonce_seed WHERE id = 1').get() as { seed: Buffer } | undefined;
    if (seeded === undefined) throw new Error('nonce_seed has no row: the database was not migrated');
    this.live = new NonceFingerprints(memoryLimit, seeded.seed);
    this.st = {
      tail: db.prepare('SELECT id, key, expires_at FROM nonce_log WHERE id > ? ORDER BY id'),
      append: db.prepare('INSERT INTO nonce_log (key, expires_at) VALUES (?, ?)'),
      // Never the newest row: with it in place SQLite keeps handing out increasing ids, which the
      // tail read relies on.
      sweep: db.prepare('DELETE FROM nonce_log WHERE id >= ? AND id < ? AND expires_at <= ?'),
      // Any rows at all, and any fingerprint rows (a range of the primary key: they sort first, NUL).
      overflowState: db.prepare('SELECT EXISTS (SELECT 1 FROM nonces) AS any, EXISTS (SELECT 1 FROM nonces WHERE key >= ? AND key < ?) AS fingerprints'),
      overflowLive: db.prepare('SELECT 1 FROM nonces WHERE key = ? AND expires_at > ?'),
      overflowUpsert: db.prepare(`INSERT INTO nonces (key, expires_at) VALUES (?, ?)
        ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at <= ?`),
      overflowPrune: db.prepare('DELETE FROM nonces WHERE expires_at <= ?'),
    };
    const tx = db.transaction((batch: readonly NonceRequest[], now: number, added: string[]) => this.decideLocked(batch, now, added));
    this.decideTx = (batch, now, added) => tx.immediate(batch, now, added);
  }

  /**
   * Records each fresh key and answers, per key and in order, true (fresh) or false (seen and not yet
   * expired, including earlier in the same batch). One transaction for the whole batch; if it throws,
   * nothing of the batch is remembered.
   */
  consume(batch: readonly NonceRequest[], now = Date.now()): boolean[] {
    // Keys this batch adds to `live`, taken out again if its transaction fails.
    const added: string[] = [];
    const seenBefore = this.seenId;
    try {
      return this.decideTx(batch, now, added);
    } catch (err) {
      // Rolled back: forget what this batch added; read the log from where this batch began again
      // (our appends vanished, so another connection may reuse their ids).
      for (const key of added) this.live.forget(key, now);
      this.seenId = seenBefore;
      throw err;
    }
  }

  /** Live nonces held in memory at the latest decision's clock (a scan: for tests and diagnostics). */
  get size(): number {
    return this.live.liveCount(this.lastNow);
  }

  private decideLocked(batch: readonly NonceRequest[], now: number, added: string[]): boolean[] {
    this.lastNow = now;
    this.readTail(now);
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS) this.sweep(now);
    if (now - this.lastOverflowPrune >= OVERFLOW_PRUNE_INTERVAL_MS) {
      this.lastOverflowPrune = now;
      this.st.overflowPrune.run(now);
    }
    const state = this.st.overflowState.get(FINGERPRINT_KEY_PREFIX, FINGERPRINT_KEY_END) as { any: number; fingerprints: number };
    let overflow = state.any === 1;
    // Most overflow rows are keys; the second lookup, by fingerprint, only while there are such rows.
    this.fingerprintsOverflowed = state.fingerprints === 1;
    const fresh = new Array<boolean>(batch.length);
    let entries = 0;
    let latest = 0;
    for (let i = 0; i < batch.length; i++) {
      const { key, expiresAtMs } = batch[i]!;
      if (this.live.has(key, now)) {
        fresh[i] = false;
      } else if (overflow && this.inOverflow(key, now)) {
        fresh[i] = false;
      } else if (this.live.addLast(expiresAtMs, now)) {
        added.push(key);
        this.writeEntry(entries++, this.live.lastA, this.live.lastB, expiresAtMs);
        if (expiresAtMs > latest) latest = expiresAtMs;
        fresh[i] = true;
      } else {
        // Past the memory limit, or a fingerprint the index cannot place: the key-ordered table decides.
        fresh[i] = this.st.overflowUpsert.run(key, expiresAtMs, now).changes > 0;
        overflow = true;
      }
    }
    if (entries > 0) {
      this.seenId = Number(this.st.append.run(this.row.subarray(0, 1 + entries * ENTRY_BYTES), latest).lastInsertRowid);
    }
    return fresh;
  }

  /** True when the overflow table holds `key` live, by key or by the fingerprint `has` just computed. */
  private inOverflow(key: string, now: number): boolean {
    if (this.st.overflowLive.get(key, now) !== undefined) return true;
    return this.fingerprintsOverflowed && this.st.overflowLive.get(fingerprintKey(this.live.lastA, this.live.lastB), now) !== undefined;
  }

  /** Writes entry `n` of the row being built, growing it when full. */
  private writeEntry(n: number, a: number, b: number, expiresAtMs: number): void {
    const at = 1 + n * ENTRY_BYTES;
    if (at + ENTRY_BYTES > this.row.length) {
      const bigger = Buffer.alloc(2 * this.row.length);
      this.row.copy(bigger);
      this.row = bigger;
    }
    this.row.writeInt32LE(a, at);
    this.row.writeInt32LE(b, at + 4);
    this.row.writeDoubleLE(expiresAtMs, at + 8);
  }

  /** Takes in rows other connections appended (all rows, on the first call): they are nonces seen. */
  private readTail(now: number): void {
    const rows = this.st.tail.all(this.seenId) as LogRow[];
    if (rows.length === 0) return;
    for (const row of rows) {
      if (row.expires_at > now) this.takeInFingerprints(row.key, now);
    }
    this.seenId = rows[rows.length - 1]!.id;
  }

  /** The live entries of a fingerprint row: into memory, or the table (by fingerprint) past the limit. */
  private takeInFingerprints(blob: Buffer | string, now: number): void {
    readLogRow(blob, now, (a, b, expiresAtMs) => {
      if (!this.live.rememberFingerprint(a, b, expiresAtMs, now)) this.st.overflowUpsert.run(fingerprintKey(a, b), expiresAtMs, now);
    });
  }

  /**
   * Deletes expired log rows over a window of ids that moves on each time and wraps around, so the
   * log is swept without an index on expiry; the window is at least twice what was appended since
   * the last sweep, so sweeping outpaces appending.
   */
  private sweep(now: number): void {
    const appended = this.seenId - this.idAtLastSweep;
    const to = Math.min(this.seenId, this.sweepFrom + Math.max(SWEEP_MIN_ROWS, 2 * appended));
    this.st.sweep.run(this.sweepFrom, to, now);
    this.sweepFrom = to >= this.seenId ? 0 : to;
    this.lastSweep = now;
    this.idAtLastSweep = this.seenId;
  }
}

/**
 * Calls `visit` with each entry of the log row `blob` that is live at `now`. Throws on a row of a format
 * this version does not read: refusing every nonce (503) is the safe answer to it.
 */
export function readLogRow(blob: Buffer | string, now: number, visit: (a: number, b: number, expiresAtMs: number) => void): void {
  if (typeof blob === 'string') throw new Error('nonce_log holds a text row, a format this version does not read');
  if (blob[0] !== FINGERPRINT_ROW || (blob.length - 1) % ENTRY_BYTES !== 0) {
    throw new Error(`nonce_log holds a row of an unknown format (${blob.length} bytes, format ${blob[0]}): written by a newer roa?`);
  }
  for (let at = 1; at < blob.length; at += ENTRY_BYTES) {
    const expiresAtMs = blob.readDoubleLE(at + 8);
    if (expiresAtMs > now) visit(blob.readInt32LE(at), blob.readInt32LE(at + 4), expiresAtMs);
  }
}
