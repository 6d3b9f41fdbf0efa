/** @module storage/postgres/postgres-errors Turns pg driver errors into roa errors, so no caller sees SQLSTATEs. */
import { HttpError } from '../../errors/http-error.js';
import { storeFailure, storeUnavailable } from '../store-errors.js';

/** Socket-level failures: the server is not there (or went away). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE',
]);

/**
 * SQLSTATEs meaning "the database cannot serve now", worth a 503 rather than a 500: connection exceptions
 * (class 08), shutdown (57P01-03), too many connections (53300), unknown database (3D000), authentication
 * (28xxx), and serialization failure or deadlock (40001, 40P01) which a retry resolves.
 */
function unavailableState(code: string): boolean {
  return code.startsWith('08') || code.startsWith('28') || code.startsWith('57P') ||
    code === '53300' || code === '3D000' || code === '40001' || code === '40P01';
}

/** The connection target without its password, for messages. */
export function describeTarget(connectionString: string): string {
  try {
    const u = new URL(connectionString);
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    return 'PostgreSQL (unparseable connection string)';
  }
}

/** Maps any error thrown by pg (or by the store itself) to an HttpError; HttpErrors pass through untouched. */
export function mapPgError(err: unknown, what: string, target: string): HttpError {
  if (err instanceof HttpError) return err;
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  // Node reports a refused dual-stack connect as an AggregateError with an empty message.
  const reason = (typeof e.message === 'string' && e.message !== '' ? e.message : code) || String(err);
  const text = reason.replace(/\s+/g, ' ');
  if (NETWORK_CODES.has(code) || /timeout exceeded when trying to connect|Connection terminated/i.test(text)) {
    return storeUnavailable(`cannot reach PostgreSQL at ${target}: ${text}`, err);
  }
  if (unavailableState(code)) {
    return storeUnavailable(`PostgreSQL at ${target} is unavailable (${what}): ${text}`, err);
  }
  return storeFailure(`PostgreSQL ${what} failed: ${text}`, err);
}
