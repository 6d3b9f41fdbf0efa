/**
 * @module gateway/structured-field
 * CDN-Cache-Control as a Structured Field Dictionary (RFC 9213 §2.1, RFC 9651 §3.2), parsed by
 * `structured-headers`.
 */
import { parseDictionary, Token } from 'structured-headers';
import type { Directives } from './cache-control.js';

const DELTA_DIRECTIVES = new Set(['max-age', 's-maxage', 'stale-while-revalidate', 'stale-if-error']);

/**
 * Parses a Dictionary into directives, or returns undefined when it is not a valid Structured
 * Field; RFC 9213 §2.1 then has the cache ignore CDN-Cache-Control and fall back to
 * Cache-Control. A freshness directive whose value is not a non-negative Integer invalidates it
 * too. A repeated key keeps its last value (RFC 9651 §4.2.2). Members that are inner lists,
 * dates, byte sequences or display strings are valid but carry nothing a cache directive reads,
 * so they count as present without an argument; `?0` means the directive is not given.
 */
export function parseSfDictionary(value: string): Directives | undefined {
  let dict: ReturnType<typeof parseDictionary>;
  try {
    dict = parseDictionary(value);
  } catch {
    return undefined;
  }
  if (dict.size === 0) return undefined;
  const out: Directives = new Map();
  for (const [key, [item]] of dict) {
    if (DELTA_DIRECTIVES.has(key) && !(typeof item === 'number' && Number.isInteger(item) && item >= 0)) return undefined;
    if (item === false) continue;
    if (typeof item === 'number' || typeof item === 'string') out.set(key, String(item));
    else if (item instanceof Token) out.set(key, item.toString());
    else out.set(key, true);
  }
  return out;
}
