/**
 * @module storage/sqlite/nonce-log-remnant
 * The nonces a file's nonce log still holds when a store opens it with the keyed table: each stays
 * refused until it expires, so turning the log off never lets a recorded nonce be replayed.
 */
import type { Database as Db } from 'better-sqlite3';
import { NonceFingerprints } from './nonce-fingerprints.js';
import { readLogRow } from './sqlite-nonce-log.js';

export class NonceLogRemnant {
  /** After this instant nothing in the remnant is live, and the store lets go of it. */
  until = 0;
  private readonly index: NonceFingerprints;
  /** Fingerprints the index could not place (its probe cap), by `a:b`, with their expiry. */
  private readonly unplaced = new Map<string, number>();

  /** Reads the live rows of the log on `db` (its seed fingerprints alike); undefined when none is live. */
  static read(db: Db, now: number): NonceLogRemnant | undefined {
    const rows = db.prepare('SELECT key FROM nonce_log WHERE expires_at > ?').all(now) as { key: Buffer | string }[];
    if (rows.length === 0) return undefined;
    const { seed } = db.prepare('SELECT seed FROM nonce_seed WHERE id = 1').get() as { seed: Buffer };
    const entries: [number, number, number][] = [];
    for (const row of rows) readLogRow(row.key, now, (a, b, expiresAtMs) => entries.push([a, b, expiresAtMs]));
    if (entries.length === 0) return undefined;
    return new NonceLogRemnant(new NonceFingerprints(entries.length, seed), entries, now);
  }

  private constructor(index: NonceFingerprints, entries: readonly [number, number, number][], now: number) {
    this.index = index;
    for (const [a, b, expiresAtMs] of entries) {
      if (!index.rememberFingerprint(a, b, expiresAtMs, now)) this.unplaced.set(`${a}:${b}`, expiresAtMs);
      if (expiresAtMs > this.until) this.until = expiresAtMs;
    }
  }

  /** True when the log recorded `key` and that record is live at `now`. */
  has(key: string, now: number): boolean {
    if (this.index.has(key, now)) return true;
    if (this.unplaced.size === 0) return false;
    const expiresAtMs = this.unplaced.get(`${this.index.lastA}:${this.index.lastB}`);
    return expiresAtMs !== undefined && expiresAtMs > now;
  }
}
