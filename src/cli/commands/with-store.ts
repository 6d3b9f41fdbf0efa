/**
 * @module cli/commands/with-store
 * Opens the store named by `--db` (or DATABASE_URL) for one command and closes it after.
 */
import { openStore } from '../../storage/open-store.js';
import type { Store } from '../../storage/store.js';
import { SERVE_OPTIONS, resolveOption } from '../options.js';

export async function withStore<T>(db: unknown, fn: (store: Store) => Promise<T>): Promise<T> {
  // The schema comes from ROA_PG_SCHEMA, as for `roa serve`, so users and clients land beside the articles.
  const schema = resolveOption(SERVE_OPTIONS.schema, undefined);
  const store = await openStore(resolveOption(SERVE_OPTIONS.db, db)!, schema === undefined ? {} : { schema });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
