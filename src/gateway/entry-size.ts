/**
 * @module gateway/entry-size
 * Estimates of the memory a stored response and a cache key hold, for the gateway's byte bound.
 */
import type { StoredResponse } from './cache-store.js';

/**
 * Per-object costs on 64-bit V8 (node 20, no pointer compression), measured by filling a store and
 * reading `process.memoryUsage()` after a full GC, then rounded up. They are estimates; the
 * regression test for issue 24 checks the bound against the real heap with a margin.
 */
/** A string's header and rounding; field values and URLs are one byte per character (latin1). */
const STRING = 24;
/** The response object with its freshness numbers, its small arrays and the Map entry that finds it. */
const RESPONSE = 640;
/** A Buffer: the view, its ArrayBuffer, the backing store record and the allocator's header. */
const BUFFER = 320;
/** One `{ name, lower, value }` field and its array slot. */
const FIELD = 64;
/** One tag: its place in the tag index (a Set entry, or a new Set). */
const TAG = 192;
/** One slot of the precomputed hit head. */
const SLOT = 8;
/** A key: its entry in the LRU Map and its variant set (two small Maps and a group record). */
const KEY = 768;

function stringBytes(s: string | undefined): number {
  return s === undefined ? 0 : STRING + s.length;
}

/**
 * Bytes a stored response holds: body, every field name and value (the lower-cased name when it
 * is a separate string), the hit head, Vary values, its variant key, tags and the objects around them.
 * Strings shared with `fields` (`head`, `etag`, `lastModified`) are counted once.
 */
export function responseBytes(res: StoredResponse): number {
  let n = RESPONSE + BUFFER + res.body.length + stringBytes(res.statusMessage) + stringBytes(res.variantKey);
  for (const f of res.fields) n += FIELD + stringBytes(f.name) + stringBytes(f.value) + (f.lower === f.name ? 0 : stringBytes(f.lower));
  n += res.head.length * SLOT + stringBytes(res.head[res.head.length - 7]);
  for (const v of res.varyValues) n += SLOT + stringBytes(v);
  for (const t of res.tags) n += TAG + stringBytes(t);
  return n;
}

/** Bytes a key holds beyond its responses: the key string and the structures that index it. */
export function keyBytes(key: string): number {
  return KEY + stringBytes(key);
}
