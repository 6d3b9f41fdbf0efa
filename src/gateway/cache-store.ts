/**
 * @module gateway/cache-store
 * The contract between the proxy and a store of complete responses (one key, many Vary variants).
 */
import type { Freshness } from './cache-rules.js';
import type { Field } from './headers.js';

/** One stored response: everything a hit needs, precomputed when it was stored. */
export interface StoredResponse extends Freshness {
  key: string;
  status: number;
  statusMessage: string;
  /** Stored header fields as received (hop-by-hop removed, repeated lines joined). */
  fields: Field[];
  /** Flat header array for a hit; the last slot is the `Age` value, overwritten on each hit. */
  head: string[];
  body: Buffer;
  /** Lower-cased Vary field names, undefined when the response has no Vary. */
  varyNames: string[] | undefined;
  /** The presented request's values for `varyNames` (undefined = absent). */
  varyValues: (string | undefined)[];
  etag: string | undefined;
  lastModified: string | undefined;
  /** Purge tags from `xkey` / `Surrogate-Key`. */
  tags: string[];
  /** Bytes accounted against the memory bound. */
  size: number;
}

/** Synchronous on purpose: a hit must not wait for a promise tick. */
export interface CacheStore {
  /** Variants stored under `key` (marks them recently used), or undefined. */
  get(key: string): StoredResponse[] | undefined;
  /** Stores a response, replacing the variant with the same Vary values. */
  put(res: StoredResponse): void;
  /** Removes one stored variant (e.g. after validation showed it is gone). */
  remove(res: StoredResponse): void;
  /** Removes every variant under `key`; returns how many were removed. */
  delete(key: string): number;
  /** Removes every response tagged `tag`; returns how many were removed. */
  deleteTag(tag: string): number;
  readonly bytes: number;
  readonly count: number;
}
