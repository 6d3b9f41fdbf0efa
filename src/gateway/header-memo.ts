/**
 * @module gateway/header-memo
 * Memoises a pure function of one request field's value for the hit path: the value the last request
 * brought is recognised by comparison alone, any other through a bounded map.
 */
import { BoundedMap } from '../util/bounded-map.js';

/**
 * Returns `compute` memoised by the raw field value. Every request brings its values as new
 * strings, and a Map look-up first hashes the whole string (a browser's Accept is some 135
 * characters, which costs more than the negotiation's other steps on a hit); comparing with the
 * last value is a length check and a byte comparison, and consecutive requests mostly carry the
 * same value (one browser's, one client library's). Other values go through a map of at most
 * `limit` entries, as they are whatever clients send.
 * @example
 *   const gzipOk = headerMemo((ae) => ae.includes('gzip'), 1000);
 *   gzipOk('gzip, deflate, br'); // computed once, then remembered
 */
export function headerMemo<T>(compute: (value: string) => T, limit: number): (value: string) => T {
  const memo = new BoundedMap<string, T>(limit);
  let lastValue: string | undefined;
  let lastResult: T;
  return (value) => {
    if (value === lastValue) return lastResult;
    let result: T;
    if (memo.has(value)) result = memo.get(value)!;
    else memo.set(value, (result = compute(value)));
    lastValue = value;
    lastResult = result;
    return result;
  };
}
