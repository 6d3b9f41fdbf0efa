/**
 * @module gateway/cache-rules
 * RFC 9111 decisions kept apart from the proxy: storability, freshness lifetime, age, reuse.
 */
import CachePolicy from 'http-cache-semantics';
import { fieldNamesOf, parseAge, parseCacheControl, parseDeltaSeconds, type Directives } from './cache-control.js';
import { parseHttpDate } from '../http/http-date.js';
import { parseSfDictionary } from './structured-field.js';

/** RFC 9110 §15.1: statuses that are heuristically cacheable. */
const HEURISTIC_STATUSES = new Set([200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]);

/** Statuses whose caching requirements this cache understands (for `must-understand`, RFC 9111 §5.2.2.3). */
const UNDERSTOOD_STATUSES = new Set([
  200, 201, 202, 203, 204, 300, 301, 302, 303, 307, 308, 400, 401, 403, 404, 405, 406, 409, 410, 411,
  412, 413, 414, 415, 416, 417, 421, 422, 426, 428, 429, 431, 451, 500, 501, 502, 503, 504, 505,
]);

/** What the cache may do with one response, computed once when it arrives. */
export interface ResponsePolicy {
  storable: boolean;
  /** Freshness lifetime in seconds (RFC 9111 §4.2.1). */
  lifetime: number;
  /** RFC 5861 windows, seconds. */
  swr: number;
  sie: number;
  /** `no-cache` (unqualified): every reuse needs validation (RFC 9111 §5.2.2.4). */
  noCache: boolean;
  /** must-revalidate, proxy-revalidate or s-maxage: never served stale (RFC 9111 §5.2.2.2, .8, .10). */
  mustRevalidate: boolean;
  /** Fields named by `private="…"` / `no-cache="…"`, dropped from the stored copy. */
  strip: string[];
}

/** Request directives that change reuse (RFC 9111 §5.2.1). */
export interface RequestDirectives {
  noCache: boolean;
  noStore: boolean;
  maxAge: number | undefined;
  minFresh: number | undefined;
  maxStale: number | undefined;
  onlyIfCached: boolean;
  staleIfError: number | undefined;
}

const NO_REQUEST_DIRECTIVES: RequestDirectives = {
  noCache: false, noStore: false, maxAge: undefined, minFresh: undefined, maxStale: undefined,
  onlyIfCached: false, staleIfError: undefined,
};

/** Reads the request's Cache-Control (and Pragma when there is no Cache-Control, RFC 9111 §5.4). */
export function requestDirectives(cc: string | undefined, pragma: string | undefined): RequestDirectives {
  if (cc === undefined) {
    if (pragma !== undefined && /(^|,)\s*no-cache\s*(,|$)/i.test(pragma)) return { ...NO_REQUEST_DIRECTIVES, noCache: true };
    return NO_REQUEST_DIRECTIVES;
  }
  const d = parseCacheControl(cc);
  const maxStale = d.get('max-stale');
  return {
    noCache: d.has('no-cache'),
    noStore: d.has('no-store'),
    // An invalid request max-age is read as 0 (RFC 9111 §4.2.1: invalid means stale).
    maxAge: d.has('max-age') ? (parseDeltaSeconds(d.get('max-age')) ?? 0) : undefined,
    minFresh: d.has('min-fresh') ? (parseDeltaSeconds(d.get('min-fresh')) ?? 0) : undefined,
    maxStale: maxStale === undefined ? undefined : maxStale === true ? Infinity : (parseDeltaSeconds(maxStale) ?? 0),
    onlyIfCached: d.has('only-if-cached'),
    staleIfError: d.has('stale-if-error') ? parseDeltaSeconds(d.get('stale-if-error')) : undefined,
  };
}

/**
 * The directives a shared cache obeys. RFC 9213 §2.1: a valid CDN-Cache-Control replaces
 * Cache-Control entirely for this cache; an invalid one is ignored.
 */
export function effectiveDirectives(headers: Record<string, string>): { directives: Directives; cdn: boolean } {
  const cdn = headers['cdn-cache-control'];
  if (cdn !== undefined) {
    const parsed = parseSfDictionary(cdn);
    if (parsed !== undefined) return { directives: parsed, cdn: true };
  }
  return { directives: parseCacheControl(headers['cache-control']), cdn: false };
}

/**
 * Decides storability and freshness for a response to `method`.
 * `http-cache-semantics` supplies the base storability rules (RFC 9111 §3); it is fed the
 * directives this module parsed (its own parser splits quoted strings and is case-sensitive),
 * and two of its rules are widened where RFC 9111 allows more: any final status other than
 * 206/304 may be stored with explicit freshness (§3: only 206, 304 and must-understand require
 * the status to be understood), and `must-revalidate` only matters once stale (§5.2.2.2; the
 * library revalidates fresh responses too, which is why reuse is decided in {@link reuse}).
 */
export function responsePolicy(
  method: string,
  status: number,
  headers: Record<string, string>,
  req: RequestDirectives,
  responseTime: number,
): ResponsePolicy {
  const { directives: d } = effectiveDirectives(headers);
  const strip = [...fieldNamesOf(d.get('private')), ...fieldNamesOf(d.get('no-cache'))];
  const noCache = d.get('no-cache') === true;
  const mustRevalidate = d.has('must-revalidate') || d.has('proxy-revalidate') || d.has('s-maxage');
  const swr = parseDeltaSeconds(d.get('stale-while-revalidate')) ?? 0;
  const sie = parseDeltaSeconds(d.get('stale-if-error')) ?? 0;
  const lifetime = freshnessLifetime(status, headers, d, responseTime);
  const base = { lifetime, swr, sie, noCache, mustRevalidate, strip };
  const no = { ...base, storable: false };

  if (method !== 'GET' || status < 200 || status === 206 || status === 304 || req.noStore) return no;
  let noStore = d.has('no-store');
  if (d.has('must-understand')) {
    if (!UNDERSTOOD_STATUSES.has(status)) return no;
    noStore = false; // RFC 9111 §5.2.2.3: must-understand overrides no-store for understood statuses
  }
  if (noStore || d.get('private') === true) return no;
  const vary = headers.vary;
  if (vary !== undefined && vary.split(',').some((v) => v.trim() === '*')) return no;

  const explicit = d.has('max-age') || d.has('s-maxage') || headers.expires !== undefined;
  const libHeaders: Record<string, string> = {};
  const cc = ['public', 'max-age', 's-maxage'].filter((k) => d.has(k)).map((k) => (d.get(k) === true ? k : `${k}=${String(d.get(k))}`));
  if (cc.length > 0) libHeaders['cache-control'] = cc.join(', ');
  if (headers.expires !== undefined) libHeaders.expires = headers.expires;
  const lib = new CachePolicy({ method: 'GET', url: '/', headers: {} }, { status, headers: libHeaders }, { shared: true });
  const storable = lib.storable() || (explicit && !UNDERSTOOD_BY_LIBRARY.has(status));
  return { ...base, storable };
}

/** The statuses `http-cache-semantics` knows; for others its "not understood" veto is lifted. */
const UNDERSTOOD_BY_LIBRARY = new Set([200, 203, 204, 300, 301, 302, 303, 307, 308, 404, 405, 410, 414, 501]);

function freshnessLifetime(status: number, headers: Record<string, string>, d: Directives, responseTime: number): number {
  // RFC 9111 §4.2.1: s-maxage (shared caches), then max-age, then Expires - Date, then heuristics.
  // An invalid value is "invalid freshness information": stale, not absent.
  if (d.has('s-maxage')) return parseDeltaSeconds(d.get('s-maxage')) ?? 0;
  if (d.has('max-age')) return parseDeltaSeconds(d.get('max-age')) ?? 0;
  const date = parseHttpDate(headers.date) ?? responseTime;
  if (headers.expires !== undefined) {
    const expires = parseHttpDate(headers.expires);
    return expires === undefined ? 0 : Math.max(0, (expires - date) / 1000);
  }
  // RFC 9111 §4.2.2: heuristics only for heuristically cacheable statuses or `public`.
  if (HEURISTIC_STATUSES.has(status) || d.has('public')) {
    const lm = parseHttpDate(headers['last-modified']);
    if (lm !== undefined && lm < date) return Math.min(((date - lm) / 1000) * 0.1, 86400);
  }
  return 0;
}

/** RFC 9111 §4.2.3 corrected_initial_age, in seconds. */
export function initialAge(headers: Record<string, string>, requestTime: number, responseTime: number): number {
  const date = parseHttpDate(headers.date);
  const apparent = date === undefined ? 0 : Math.max(0, (responseTime - date) / 1000);
  const corrected = parseAge(headers.age) + (responseTime - requestTime) / 1000;
  return Math.max(apparent, corrected);
}

/** The numbers reuse needs; a stored response carries them. */
export interface Freshness {
  responseTime: number;
  initialAge: number;
  lifetime: number;
  swr: number;
  sie: number;
  noCache: boolean;
  mustRevalidate: boolean;
}

/** RFC 9111 §4.2.3 current_age in seconds. */
export function currentAge(f: Freshness, now: number): number {
  return f.initialAge + (now - f.responseTime) / 1000;
}

export type Reuse = 'fresh' | 'stale-ok' | 'stale-while-revalidate' | 'validate';

/** RFC 9111 §4 / §4.2.4 / RFC 5861 §3: may this stored response answer this request? */
export function reuse(f: Freshness, req: RequestDirectives, now: number): Reuse {
  const age = currentAge(f, now);
  if (f.noCache || req.noCache) return 'validate';
  if (req.maxAge !== undefined && age > req.maxAge) return 'validate';
  if (req.minFresh !== undefined && f.lifetime - age < req.minFresh) return 'validate';
  if (age < f.lifetime) return 'fresh';
  if (f.mustRevalidate) return 'validate';
  if (req.maxStale !== undefined && age - f.lifetime <= req.maxStale) return 'stale-ok';
  if (age < f.lifetime + f.swr) return 'stale-while-revalidate';
  return 'validate';
}

/**
 * RFC 5861 §4 / RFC 9111 §4.2.4: may a stale response stand in for an upstream error?
 * `disconnected` (the origin could not be reached at all) is the case §4.2.4 allows without
 * any stale-if-error, unless must-revalidate / proxy-revalidate / s-maxage / no-cache forbid it.
 */
export function usableOnError(f: Freshness, req: RequestDirectives, now: number, disconnected = false): boolean {
  if (f.mustRevalidate || f.noCache) return false;
  if (disconnected) return true;
  const stale = currentAge(f, now) - f.lifetime;
  const window = Math.max(f.sie, req.staleIfError ?? 0);
  return stale < window;
}
