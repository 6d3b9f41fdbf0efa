/**
 * @module cli/commands/with-store
 * Opens the store named by `--db` (or DATABASE_URL), in `--schema` (or ROA_PG_SCHEMA) on PostgreSQL,
 * for one command and closes it after.
 */
import { openStore } from '../../storage/open-store.js';
import type { Store } from '../../storage/store.js';
import { SERVE_OPTIONS, resolveOption } from '../options.js';

/** The command's `--db` and `--schema` flags (each falls back to its environment variable). */
export interface StoreFlags {
  db?: unknown;
  schema?: unknown;
}

export async function withStore<T>(flags: StoreFlags, fn: (store: Store) => Promise<T>): Promise<T> {
  // --schema or ROA_PG_SCHEMA, as for `roa serve`, so users and clients land beside the articles.
  const schema = resolveOption(SERVE_OPTIONS.schema, flags.schema);
  const store = await openStore(resolveOption(SERVE_OPTIONS.db, flags.db)!, schema === undefined ? {} : { schema });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
