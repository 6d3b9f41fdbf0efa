/**
 * @module test/integration/hold-load
 * Holds the next read of one slug after it has read the row, so a GET that saw the old article
 * can be kept in flight across a write (the fill-versus-purge race of read-your-writes).
 */
import type { Article, Store } from '../../src/storage/store.js';

export interface HeldLoad {
  /** Resolves once the held read has the (old) row. */
  loaded: Promise<void>;
  /** Lets the held read return. */
  release(): void;
  /** Puts the store's method back. */
  restore(): void;
}

/** Patches `store.getArticleBySlug` on the instance: the first read of `slug` waits for `release()`. */
export function holdNextLoad(store: Store, slug: string): HeldLoad {
  const original = store.getArticleBySlug;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let loaded!: () => void;
  const loadedP = new Promise<void>((r) => (loaded = r));
  let held = false;
  store.getArticleBySlug = async (s: string): Promise<Article | undefined> => {
    const row = await original.call(store, s);
    if (!held && s === slug) {
      held = true;
      loaded();
      await gate;
    }
    return row;
  };
  return {
    loaded: loadedP,
    release,
    restore() {
      release();
      store.getArticleBySlug = original;
    },
  };
}
