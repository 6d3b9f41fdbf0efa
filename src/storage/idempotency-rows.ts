/** @module storage/idempotency-rows The SQL and row shape of idempotency keys that SQLite and PostgreSQL share. */
import { storeFailure } from './store-errors.js';
import type { IdempotencyClaimResult } from './store.js';

/**
 * Claims a key in one statement ($1 caller, $2 key, $3 token, $4 fingerprint, $5 locked_until,
 * $6 expires_at, $7 now): a free key is inserted; an expired key, or a running marker past its
 * `locked_until` (its instance died), is taken over; any other row is left alone and no row changes.
 */
export const CLAIM_SQL = `INSERT INTO idempotency_keys (caller, key, token, fingerprint, locked_until, expires_at)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (caller, key) DO UPDATE SET token = excluded.token, fingerprint = excluded.fingerprint,
    locked_until = excluded.locked_until, expires_at = excluded.expires_at, status = NULL, headers = NULL, body = NULL
  WHERE idempotency_keys.expires_at <= $7
    OR (idempotency_keys.status IS NULL AND idempotency_keys.locked_until <= $7)`;

export interface IdempotencyRow {
  fingerprint: string;
  status: number | null;
  headers: string | null;
  body: string | null;
}

/** What a key the claim could not take holds: a running marker, or a stored answer. */
export function rowToClaimResult(row: IdempotencyRow): IdempotencyClaimResult {
  if (row.status === null) return { state: 'running', fingerprint: row.fingerprint };
  let headers: Record<string, string>;
  try {
    headers = JSON.parse(row.headers ?? '{}') as Record<string, string>;
  } catch (err) {
    throw storeFailure('stored idempotent response has unreadable headers', err);
  }
  return { state: 'done', fingerprint: row.fingerprint, response: { status: Number(row.status), headers, body: row.body ?? '' } };
}
