/**
 * @module operations/shutdown-timeout
 * `--shutdown-timeout`: how long a graceful shutdown may take, in seconds by default.
 */

/** Default bound of a graceful shutdown (ms). */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
/** An hour: an orchestrator kills long before that, so a bigger value is a typo, not a wish. */
export const MAX_SHUTDOWN_TIMEOUT_MS = 3_600_000;

const DURATION = /^(\d+(?:\.\d+)?)(ms|s)?$/;

/**
 * Parses a shutdown timeout: plain seconds (`10`, `2.5`) or with a unit (`500ms`, `10s`); 0 cuts at
 * once. A clear error for anything else or past an hour. Returns milliseconds.
 * @example parseShutdownTimeout('500ms', '--shutdown-timeout') // 500
 */
export function parseShutdownTimeout(value: string | undefined, name: string): number {
  if (value === undefined) return DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const m = DURATION.exec(value.trim());
  const ms = m === null ? NaN : Math.round(Number(m[1]) * (m[2] === 'ms' ? 1 : 1000));
  if (!Number.isFinite(ms) || ms > MAX_SHUTDOWN_TIMEOUT_MS) {
    throw new Error(`${name} must be seconds (e.g. 10, 2.5, 10s) or milliseconds (e.g. 500ms), at most 3600s, got '${value}'`);
  }
  return ms;
}
