/**
 * @module storage/sqlite/sqlite-nonce-table
 * Replay-protection nonces on SQLite in the `nonces` table, keyed by nonce: the default.
 *
 * One upsert per nonce decides it: a new key is inserted, a key whose record has expired is taken
 * over, a live one is left alone and answers "seen". The primary key makes that exact across every
 * connection and process on the file, and a restart forgets nothing. Nonces are random, so each
 * lands on its own page of the key-ordered B-tree and every commit rewrites those pages into the
 * WAL; at very high signed-request rates `SqliteNonceLog` (an append-only log) costs less. What a
 * log on the same file still holds live when this store first decides stays refused (`NonceLogRemnant`).
 */
import type { Database as Db, Statement } from 'better-sqlite3';
import { NonceLogRemnant } from './nonce-log-remnant.js';
import type { NonceRequest, SqliteNonces } from './sqlite-nonces.js';

/** Expired rows are deleted at most this often (indexed by expiry, so a prune touches only them). */
const PRUNE_INTERVAL_MS = 1000;

export class SqliteNonceTable implements SqliteNonces {
  private lastPrune = 0;
  /** The clock of the latest decision, for `size`. */
  private lastNow = 0;
  /** The log's live nonces, read at the first decision (so with its clock) and dropped once expired. */
  private remnant: NonceLogRemnant | undefined;
  private remnantRead = false;
  private readonly st: Record<'upsert' | 'prune' | 'live', Statement>;
  private readonly decideTx: (batch: readonly NonceRequest[], now: number) => boolean[];

  constructor(private readonly db: Db) {
    this.st = {
      // Changes a row only when the key is new or its record has expired: `changes` is the answer.
      upsert: db.prepare(`INSERT INTO nonces (key, expires_at) VALUES (?, ?)
        ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at <= ?`),
      prune: db.prepare('DELETE FROM nonces WHERE expires_at <= ?'),
      live: db.prepare('SELECT count(*) AS n FROM nonces WHERE expires_at > ?'),
    };
    const tx = db.transaction((batch: readonly NonceRequest[], now: number) => this.decideLocked(batch, now));
    this.decideTx = (batch, now) => tx.immediate(batch, now);
  }

  consume(batch: readonly NonceRequest[], now = Date.now()): boolean[] {
    return this.decideTx(batch, now);
  }

  get size(): number {
    return (this.st.live.get(this.lastNow) as { n: number }).n;
  }

  private decideLocked(batch: readonly NonceRequest[], now: number): boolean[] {
    this.lastNow = now;
    if (now - this.lastPrune >= PRUNE_INTERVAL_MS) {
      this.lastPrune = now;
      this.st.prune.run(now);
    }
    if (!this.remnantRead) {
      this.remnant = NonceLogRemnant.read(this.db, now);
      this.remnantRead = true;
    }
    if (this.remnant !== undefined && now >= this.remnant.until) this.remnant = undefined;
    const remnant = this.remnant;
    const fresh = new Array<boolean>(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const { key, expiresAtMs } = batch[i]!;
      fresh[i] = (remnant === undefined || !remnant.has(key, now)) && this.st.upsert.run(key, expiresAtMs, now).changes > 0;
    }
    return fresh;
  }
}
