/**
 * @module gateway/memory-cache-store
 * In-memory CacheStore bounded by bytes, evicting the least recently used key first.
 */
import type { CacheStore, StoredResponse } from './cache-store.js';

/**
 * LRU over keys: a Map keeps insertion order, and a hit re-inserts its key at the end, so the
 * first key is always the least recently used. Tags map to the keys carrying them.
 * @example
 *   const store = new MemoryCacheStore(64 * 1024 * 1024);
 */
export class MemoryCacheStore implements CacheStore {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, StoredResponse[]>();
  readonly #tags = new Map<string, Set<string>>();
  #bytes = 0;
  #count = 0;
  /** The most recently inserted key (the Map's last one), or undefined when unknown. */
  #tail: string | undefined;

  constructor(maxBytes: number) {
    if (!(maxBytes > 0)) throw new TypeError(`MemoryCacheStore: maxBytes must be positive, got ${maxBytes}`);
    this.#maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get count(): number {
    return this.#count;
  }

  get(key: string): StoredResponse[] | undefined {
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
    if (res.size > this.#maxBytes) return;
    let variants = this.#entries.get(res.key);
    if (variants === undefined) {
      variants = [];
    } else {
      this.#entries.delete(res.key);
      const same = variants.findIndex((v) => sameVariant(v, res));
      if (same !== -1) this.#drop(variants.splice(same, 1)[0]!);
    }
    variants.unshift(res);
    this.#entries.set(res.key, variants);
    this.#tail = res.key;
    this.#bytes += res.size;
    this.#count++;
    for (const tag of res.tags) {
      let keys = this.#tags.get(tag);
      if (keys === undefined) this.#tags.set(tag, (keys = new Set()));
      keys.add(res.key);
    }
    while (this.#bytes > this.#maxBytes) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.delete(oldest.value);
    }
  }

  remove(res: StoredResponse): void {
    const variants = this.#entries.get(res.key);
    if (variants === undefined) return;
    const at = variants.indexOf(res);
    if (at === -1) return;
    variants.splice(at, 1);
    this.#drop(res);
    if (variants.length === 0) {
      this.#entries.delete(res.key);
      if (res.key === this.#tail) this.#tail = undefined;
    }
  }

  delete(key: string): number {
    const variants = this.#entries.get(key);
    if (variants === undefined) return 0;
    this.#entries.delete(key);
    if (key === this.#tail) this.#tail = undefined;
    for (const v of variants) this.#drop(v);
    return variants.length;
  }

  deleteTag(tag: string): number {
    const keys = this.#tags.get(tag);
    if (keys === undefined) return 0;
    let removed = 0;
    for (const key of [...keys]) {
      const variants = this.#entries.get(key);
      if (variants === undefined) continue;
      for (const v of variants.filter((x) => x.tags.includes(tag))) {
        this.remove(v);
        removed++;
      }
    }
    return removed;
  }

  #drop(res: StoredResponse): void {
    this.#bytes -= res.size;
    this.#count--;
    for (const tag of res.tags) {
      const keys = this.#tags.get(tag);
      if (keys === undefined) continue;
      const still = this.#entries.get(res.key)?.some((v) => v !== res && v.tags.includes(tag)) ?? false;
      if (!still) keys.delete(res.key);
      if (keys.size === 0) this.#tags.delete(tag);
    }
  }
}

function sameVariant(a: StoredResponse, b: StoredResponse): boolean {
  if (a.varyValues.length !== b.varyValues.length) return false;
  if ((a.varyNames ?? []).join() !== (b.varyNames ?? []).join()) return false;
  return a.varyValues.every((v, i) => v === b.varyValues[i]);
}
