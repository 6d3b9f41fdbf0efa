/**
 * @module gateway/memory-cache-store
 * In-memory CacheStore bounded by bytes, evicting the least recently used key first.
 */
import type { CacheStore, StoredResponse, Variants } from './cache-store.js';
import { keyBytes } from './entry-size.js';
import { VariantSet } from './variant-set.js';

export interface MemoryCacheStoreOptions {
  /** Most variants kept per key (Vary); past it the least recently used variant goes. Default 16. */
  maxVariants?: number;
}

export const DEFAULT_MAX_VARIANTS = 16;

/**
 * LRU over keys: a Map keeps insertion order, and a hit re-inserts its key at the end, so the
 * first key is always the least recently used. Tags map to the keys carrying them. The byte count
 * covers keys, fields, bodies and the objects holding them (gateway/entry-size), and never
 * exceeds `maxBytes` after a put.
 * @example
 *   const store = new MemoryCacheStore(64 * 1024 * 1024, { maxVariants: 16 });
 */
export class MemoryCacheStore implements CacheStore {
  readonly #maxBytes: number;
  readonly #maxVariants: number;
  readonly #entries = new Map<string, VariantSet>();
  readonly #tags = new Map<string, Set<string>>();
  #bytes = 0;
  #count = 0;
  /** The most recently inserted key (the Map's last one), or undefined when unknown. */
  #tail: string | undefined;

  constructor(maxBytes: number, opts: MemoryCacheStoreOptions = {}) {
    if (!(maxBytes > 0)) throw new TypeError(`MemoryCacheStore: maxBytes must be positive, got ${maxBytes}`);
    const maxVariants = opts.maxVariants ?? DEFAULT_MAX_VARIANTS;
    if (!Number.isInteger(maxVariants) || maxVariants < 1) throw new TypeError(`MemoryCacheStore: maxVariants must be a positive integer, got ${maxVariants}`);
    this.#maxBytes = maxBytes;
    this.#maxVariants = maxVariants;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get count(): number {
    return this.#count;
  }

  get(key: string): Variants | undefined {
    const variants = this.#entries.get(key);
    // Re-inserting moves the key to the LRU tail; skip it when the key already is the tail,
    // which is what a run of hits on one hot key looks like.
    if (variants !== undefined && key !== this.#tail) {
      this.#entries.delete(key);
      this.#entries.set(key, variants);
      this.#tail = key;
    }
    return variants;
  }

  put(res: StoredResponse): void {
    if (res.size + keyBytes(res.key) > this.#maxBytes) return;
    let variants = this.#entries.get(res.key);
    if (variants === undefined) {
      variants = new VariantSet();
      this.#bytes += keyBytes(res.key);
    } else {
      this.#entries.delete(res.key);
    }
    this.#entries.set(res.key, variants);
    this.#tail = res.key;
    for (const old of variants.add(res, this.#maxVariants)) this.#drop(old);
    this.#bytes += res.size;
    this.#count++;
    for (const tag of res.tags) {
      let keys = this.#tags.get(tag);
      if (keys === undefined) this.#tags.set(tag, (keys = new Set()));
      keys.add(res.key);
    }
    this.#evict(res);
  }

  remove(res: StoredResponse): void {
    const variants = this.#entries.get(res.key);
    if (variants === undefined || !variants.remove(res)) return;
    this.#drop(res);
    if (variants.size === 0) this.#forget(res.key);
  }

  delete(key: string): number {
    const variants = this.#entries.get(key);
    if (variants === undefined) return 0;
    const all = [...variants.values()];
    this.#forget(key);
    for (const v of all) this.#drop(v);
    return all.length;
  }

  deleteTag(tag: string): number {
    const keys = this.#tags.get(tag);
    if (keys === undefined) return 0;
    let removed = 0;
    for (const key of [...keys]) {
      const variants = this.#entries.get(key);
      if (variants === undefined) continue;
      for (const v of [...variants.values()].filter((x) => x.tags.includes(tag))) {
        this.remove(v);
        removed++;
      }
    }
    return removed;
  }

  /** Drops least recently used keys until the bound holds; `kept`'s own key goes last, and then only its older variants. */
  #evict(kept: StoredResponse): void {
    while (this.#bytes > this.#maxBytes) {
      const oldest = this.#entries.keys().next().value as string;
      if (oldest !== kept.key) {
        this.delete(oldest);
        continue;
      }
      for (const v of [...this.#entries.get(oldest)!.values()]) {
        if (this.#bytes <= this.#maxBytes) break;
        if (v !== kept) this.remove(v);
      }
      break;
    }
  }

  #forget(key: string): void {
    this.#entries.delete(key);
    this.#bytes -= keyBytes(key);
    if (key === this.#tail) this.#tail = undefined;
  }

  #drop(res: StoredResponse): void {
    this.#bytes -= res.size;
    this.#count--;
    const remaining = this.#entries.get(res.key);
    for (const tag of res.tags) {
      const keys = this.#tags.get(tag);
      if (keys === undefined) continue;
      let still = false;
      if (remaining !== undefined) for (const v of remaining.values()) if (v !== res && v.tags.includes(tag)) still = true;
      if (!still) keys.delete(res.key);
      if (keys.size === 0) this.#tags.delete(tag);
    }
  }
}
