/** @module storage/open-store Picks a Store adapter from a URL, loading only the driver that URL needs. */
import { loadDriver } from './load-driver.js';
import type { Store } from './store.js';

export interface OpenStoreOptions {
  /** PostgreSQL only: schema for roa's tables, created if absent. */
  schema?: string;
  /**
   * SQLite only: keep replay-protection nonces in an append-only log indexed in memory rather than the
   * table keyed by nonce (see SqliteStoreOptions.nonceLog). Default false.
   */
  sqliteNonceLog?: boolean;
  /** SQLite only, with `sqliteNonceLog`: nonces kept in memory (see SqliteStoreOptions). Default 1,000,000. */
  nonceMemoryLimit?: number;
}

/**
 * Opens, migrates and checks a store: `:memory:` or a file path (optionally `sqlite:` / `file:` prefixed) gives
 * SQLite; `postgres://` or `postgresql://` gives PostgreSQL. An unreachable or unwritable database rejects with
 * HttpError 503 `ROA_ERR_STORE_UNAVAILABLE` and a one-line message, so the CLI can fail fast; a driver package
 * that is not installed (better-sqlite3, pg) rejects with `ROA_ERR_STORE_DRIVER_MISSING`, naming the package.
 * @example
 *   const store = await openStore(process.env.DATABASE_URL ?? './data/roa.db');
 */
export async function openStore(url: string, opts: OpenStoreOptions = {}): Promise<Store> {
  // The driver, then its adapter, are imported only here and only for the URL's kind: importing roa
  // loads neither `pg` nor `better-sqlite3` (a native addon), and either may be left uninstalled.
  if (/^postgres(ql)?:\/\//i.test(url)) {
    assertPostgresUser(url);
    await loadDriver('pg');
    const { PostgresStore } = await import('./postgres/postgres-store.js');
    return PostgresStore.open({ connectionString: url, ...(opts.schema === undefined ? {} : { schema: opts.schema }) });
  }
  if (opts.schema !== undefined) throw new TypeError('a schema (--schema, ROA_PG_SCHEMA) applies to PostgreSQL only; the store URL names SQLite');
  const path = sqlitePath(url);
  await loadDriver('better-sqlite3');
  const { SqliteStore } = await import('./sqlite/sqlite-store.js');
  // The constructor opens, migrates and prepares, so a returned store is known to work.
  return new SqliteStore(path, { nonceLog: opts.sqliteNonceLog === true, nonceMemoryLimit: opts.nonceMemoryLimit });
}

/** The SQLite file named by a URL; rejects other schemes rather than creating a file named "redis:/...". */
function sqlitePath(url: string): string {
  if (url === '') throw new TypeError('empty store URL: use :memory:, a file path, or postgres://...');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined || url === ':memory:' || /^[a-z]:[\\/]/i.test(url)) return url;
  if (scheme === 'sqlite' || scheme === 'file') {
    const rest = url.slice(scheme.length + 1);
    return rest.startsWith('//') ? decodeURIComponent(rest.slice(2)) : rest;
  }
  throw new TypeError(`unsupported store URL scheme "${scheme}:": use :memory:, a file path, or postgres://...`);
}

/**
 * Refuses a PostgreSQL URL that names no user (neither `user@` nor `?user=`) while PGUSER is unset or empty.
 * pg would then fall back to the OS user's name from $USER, which differs between a shell and a service
 * manager, and without one the server answers "no PostgreSQL user name specified in startup packet".
 * An unparseable URL is left to the driver, which reports it.
 */
export function assertPostgresUser(url: string, env: NodeJS.ProcessEnv = process.env): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return;
  }
  if (parsed.username !== '' || (parsed.searchParams.get('user') ?? '') !== '' || (env.PGUSER ?? '') !== '') return;
  parsed.password = '';
  throw new TypeError(`the PostgreSQL URL ${parsed.toString()} names no user: write postgres://USER@HOST:PORT/DATABASE (or set PGUSER)`);
}
