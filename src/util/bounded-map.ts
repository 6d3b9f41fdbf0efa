/**
 * @module util/bounded-map
 * A Map that holds at most `limit` entries: adding a new key to a full map first forgets the oldest
 * one (insertion order). Memo tables keyed by what clients send (header values, tokens, user
 * names) use it so that a stream of distinct values cannot grow memory without end. Reads are a
 * plain `Map#get`: no recency bookkeeping on the hot path, which is why this is not an LRU.
 *
 * @example
 * const memo = new BoundedMap<string, number>(1000);
 * memo.set('a', 1); // past 1000 keys, the first key set is dropped
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly limit: number;

  constructor(limit: number) {
    super();
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`BoundedMap: limit must be a positive integer, got ${limit}`);
    this.limit = limit;
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) {
      const oldest = this.keys().next();
      if (oldest.done !== true) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}
