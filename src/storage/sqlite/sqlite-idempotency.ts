/** @module storage/sqlite/sqlite-idempotency Idempotency keys on SQLite: each call is one synchronous statement, hence atomic. */
import type { Database as Db, Statement } from 'better-sqlite3';
import type { IdempotencyClaim, IdempotencyClaimResult, IdempotencyKeyRef, IdempotentResponse } from '../store.js';
import { CLAIM_SQL, rowToClaimResult, type IdempotencyRow } from '../idempotency-rows.js';

/** The idempotency-key statements of one connection, prepared once. */
export class SqliteIdempotency {
  private readonly claim: Statement;
  private readonly read: Statement;
  private readonly complete: Statement;
  private readonly release: Statement;
  private readonly sweep: Statement;

  constructor(db: Db) {
    this.claim = db.prepare(CLAIM_SQL.replace(/\$(\d)/g, '@p$1'));
    this.read = db.prepare('SELECT fingerprint, status, headers, body FROM idempotency_keys WHERE caller = ? AND key = ?');
    this.complete = db.prepare(`UPDATE idempotency_keys SET status = ?, headers = ?, body = ?, locked_until = NULL
      WHERE caller = ? AND key = ? AND token = ?`);
    this.release = db.prepare('DELETE FROM idempotency_keys WHERE caller = ? AND key = ? AND token = ?');
    this.sweep = db.prepare(`DELETE FROM idempotency_keys WHERE rowid IN
      (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)`);
  }

  claimKey(c: IdempotencyClaim): IdempotencyClaimResult {
    const params = { p1: c.caller, p2: c.key, p3: c.token, p4: c.fingerprint, p5: Math.floor(c.lockedUntilMs), p6: Math.floor(c.expiresAtMs), p7: Math.floor(c.nowMs) };
    if (this.claim.run(params).changes > 0) return { state: 'claimed' };
    // The connection is synchronous: no other writer ran between the upsert and this read.
    return rowToClaimResult(this.read.get(c.caller, c.key) as IdempotencyRow);
  }

  completeKey(ref: IdempotencyKeyRef, response: IdempotentResponse): boolean {
    return this.complete.run(response.status, JSON.stringify(response.headers), response.body, ref.caller, ref.key, ref.token).changes > 0;
  }

  releaseKey(ref: IdempotencyKeyRef): boolean {
    return this.release.run(ref.caller, ref.key, ref.token).changes > 0;
  }

  sweepKeys(nowMs: number, limit: number): number {
    return this.sweep.run(Math.floor(nowMs), Math.max(0, Math.floor(limit))).changes;
  }
}
