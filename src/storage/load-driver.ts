/** @module storage/load-driver Loads a database driver package on first use, with a clear error when it is not installed. */
import { driverMissing } from './store-errors.js';

/** The optional driver packages and the storage each one serves. */
const DRIVERS = { 'better-sqlite3': 'SQLite', pg: 'PostgreSQL' } as const;

export type DriverName = keyof typeof DRIVERS;

/**
 * Imports `name`, so that the adapter module importing it next finds it loaded. The drivers are
 * optional dependencies: a user of the router alone never installs or compiles them, and only the
 * store that needs one loads it. A missing package rejects with HttpError `ROA_ERR_STORE_DRIVER_MISSING`
 * ("SQLite storage needs the better-sqlite3 package: npm install better-sqlite3"); any other failure
 * to load (a native addon built for another Node) passes through as it is.
 * @example
 *   await loadDriver('pg');
 */
export async function loadDriver(name: DriverName): Promise<void> {
  try {
    await import(name);
  } catch (err) {
    if (isMissing(err, name)) throw driverMissing(DRIVERS[name], name, err);
    throw err;
  }
}

/** True when `err` says the package `name` itself cannot be found (not a module it needs in turn). */
function isMissing(err: unknown, name: string): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && (message.includes(`'${name}'`) || message.includes(`"${name}"`));
}
