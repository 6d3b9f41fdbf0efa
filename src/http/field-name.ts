/**
 * @module http/field-name
 * Case-insensitive field name tests (RFC 9110 §5.1) for code that scans a head on every response:
 * no string is lower-cased, so nothing is allocated per comparison.
 */
import type { OutgoingHttpHeader } from 'node:http';

/**
 * Whether `name` is `lower` in any case; `lower` must already be lower case.
 * @example
 *   isFieldName('Content-Type', 'content-type') // true
 */
export function isFieldName(name: string, lower: string): boolean {
  const n = name.length;
  if (n !== lower.length) return false;
  for (let i = 0; i < n; i++) {
    let c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32; // A-Z; field names are tokens, so ASCII is all there is to fold
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** Index of the field named `lower` (lower case) in a flat [name, value, …] list (before `end`), or -1. */
export function fieldIndex(list: readonly OutgoingHttpHeader[], lower: string, end = list.length): number {
  for (let i = 0; i < end; i += 2) {
    const n = list[i];
    if (typeof n === 'string' && isFieldName(n, lower)) return i;
  }
  return -1;
}
