/**
 * @module gateway/cache-store
 * The contract between the proxy and a store of complete responses (one key, many Vary variants).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Freshness } from './cache-rules.js';
import type { Field } from './headers.js';

/** One stored response: everything a hit needs, precomputed when it was stored. */
export interface StoredResponse extends Freshness {
  key: string;
  status: number;
  statusMessage: string;
  /** Stored header fields as received (hop-by-hop and per-request fields removed, repeated lines joined). */
  fields: Field[];
  /** Flat header array for a hit; the last slot is the `Age` value, overwritten on each hit. */
  head: string[];
  /** A buffer of its own: never a slice that keeps a larger one alive. */
  body: Buffer;
  /** Lower-cased, sorted Vary field names, undefined when the response has no Vary. */
  varyNames: string[] | undefined;
  /** The presented request's values for `varyNames` (undefined = absent). */
  varyValues: (string | undefined)[];
  /** Identifies the variant among those stored under `key` with the same `varyNames` (see gateway/variant-set). */
  variantKey: string;
  etag: string | undefined;
  lastModified: string | undefined;
  /** Purge tags from `xkey` / `Surrogate-Key`. */
  tags: string[];
  /** Estimated bytes the response holds in memory (see gateway/entry-size), accounted against the bound. */
  size: number;
}

/** The variants stored under one key. */
export interface Variants {
  /** The one stored response when it is the only one and has no Vary (selected without reading fields). */
  readonly only: StoredResponse | undefined;
  /** The most recent variant whose Vary-nominated fields match `headers` (RFC 9111 §4.1), in constant time. */
  select(headers: IncomingHttpHeaders): StoredResponse | undefined;
  values(): IterableIterator<StoredResponse>;
  readonly size: number;
}

/** Synchronous on purpose: a hit must not wait for a promise tick. */
export interface CacheStore {
  /** Variants stored under `key` (marks them recently used), or undefined. */
  get(key: string): Variants | undefined;
  /** Stores a response, replacing the variant with the same Vary values. */
  put(res: StoredResponse): void;
  /** Removes one stored variant (e.g. after validation showed it is gone). */
  remove(res: StoredResponse): void;
  /** Removes every variant under `key`; returns how many were removed. */
  delete(key: string): number;
  /** Removes every response tagged `tag`; returns how many were removed. */
  deleteTag(tag: string): number;
  /** Bytes counted against the bound: every key and every response, see gateway/entry-size. */
  readonly bytes: number;
  /** Stored responses (variants), over all keys. */
  readonly count: number;
}
