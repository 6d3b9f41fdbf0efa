/**
 * @module gateway/cache-control
 * Cache-Control / CDN-Cache-Control directive parsing and delta-seconds (RFC 9111 §1.2.2, §5.2).
 */

/** RFC 9111 §1.2.2: a delta-seconds too large to represent is taken as 2^31. */
export const DELTA_SECONDS_MAX = 2147483648;

/** Parsed directives: lower-cased names; `true` for a directive without an argument. */
export type Directives = Map<string, string | true>;

/**
 * Parses a Cache-Control field value. Directive names are case-insensitive (RFC 9111 §5.2);
 * arguments may be tokens or quoted strings, and a quoted string may contain commas, so a
 * naive split(',') would read `foo="max-age=1, x"` as a max-age. When a directive repeats,
 * the first occurrence wins (RFC 9111 §4.2.1 allows "use the first"). Unknown directives are
 * kept but nothing reads them, which is how they are ignored (§5.2.3).
 */
export function parseCacheControl(value: string | undefined): Directives {
  const out: Directives = new Map();
  if (value === undefined) return out;
  const len = value.length;
  let i = 0;
  while (i < len) {
    while (i < len && (value[i] === ' ' || value[i] === '\t' || value[i] === ',')) i++;
    const nameStart = i;
    while (i < len && value[i] !== '=' && value[i] !== ',' && value[i] !== ' ' && value[i] !== '\t') i++;
    const name = value.slice(nameStart, i).toLowerCase();
    while (i < len && (value[i] === ' ' || value[i] === '\t')) i++;
    let arg: string | true = true;
    if (value[i] === '=') {
      i++;
      while (i < len && (value[i] === ' ' || value[i] === '\t')) i++;
      if (value[i] === '"') {
        i++;
        let s = '';
        while (i < len && value[i] !== '"') {
          if (value[i] === '\\' && i + 1 < len) i++;
          s += value[i];
          i++;
        }
        i++;
        arg = s;
      } else {
        const argStart = i;
        while (i < len && value[i] !== ',' && value[i] !== ' ' && value[i] !== '\t') i++;
        arg = value.slice(argStart, i);
      }
    }
    // Skip anything up to the next comma (stray text after an argument is not a new directive).
    while (i < len && value[i] !== ',') i++;
    if (name !== '' && !out.has(name)) out.set(name, arg);
  }
  return out;
}

/**
 * RFC 9111 §1.2.2 delta-seconds: 1*DIGIT, clamped to 2^31. Returns undefined when invalid
 * (negative, fractional, quoted with single quotes, empty), which callers treat as
 * "invalid freshness information" (§4.2.1) rather than as absent.
 */
export function parseDeltaSeconds(arg: string | true | undefined): number | undefined {
  if (typeof arg !== 'string' || arg.length === 0) return undefined;
  for (let i = 0; i < arg.length; i++) {
    const c = arg.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  const n = Number(arg);
  return n > DELTA_SECONDS_MAX ? DELTA_SECONDS_MAX : n;
}

/**
 * RFC 9111 §5.1: Age is a single delta-seconds. With several values (several field lines,
 * or a list in one line) the first is used; an invalid first value is ignored (treated as 0),
 * as the cache-tests suite's age-parse cases expect.
 */
export function parseAge(value: string | undefined): number {
  if (value === undefined) return 0;
  const comma = value.indexOf(',');
  const first = (comma === -1 ? value : value.slice(0, comma)).trim();
  return parseDeltaSeconds(first) ?? 0;
}

/** Field names listed in a qualified `no-cache="a, b"` or `private="a"` argument, lower-cased. */
export function fieldNamesOf(arg: string | true | undefined): string[] {
  if (typeof arg !== 'string') return [];
  return arg.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
}
