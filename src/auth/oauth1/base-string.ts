/**
 * @module auth/oauth1/base-string
 * The signature base string of RFC 5849 §3.4.1: method, base string URI and normalized parameters,
 * each percent-encoded (§3.6) and joined by `&`.
 */
import { publicOrigin } from '../../http/public-origin.js';
import type { Request } from '../../http/request.js';
import { BoundedMap } from '../../util/bounded-map.js';
import type { OAuth1Param } from './params.js';
import { oauthEncode } from './percent-encoding.js';

/**
 * §3.4.1.3.2: every parameter but `oauth_signature`, name and value encoded, sorted by encoded
 * name then encoded value (plain code-unit order: the encoded strings are ASCII, so this is the
 * RFC's byte order), `name=value` joined by `&`.
 * @example
 *   normalizeParameters([{ name: 'b', value: '2' }, { name: 'a', value: 'x y' }])  // 'a=x%20y&b=2'
 */
export function normalizeParameters(params: readonly OAuth1Param[]): string {
  const encoded = sortedEncoded(params);
  let out = '';
  for (let i = 0; i < encoded.length; i += 2) out += `${i === 0 ? '' : '&'}${encoded[i]}=${encoded[i + 1]}`;
  return out;
}

/** Encoded name, encoded value, … of every parameter but oauth_signature, sorted as §3.4.1.3.2 says (flat: no pair arrays per request). */
function sortedEncoded(params: readonly OAuth1Param[]): string[] {
  const encoded: string[] = [];
  for (let i = 0; i < params.length; i++) {
    const { name, value } = params[i]!;
    if (name === 'oauth_signature') continue;
    encoded.push(oauthEncode(name), oauthEncode(value));
  }
  return encoded.length <= 2 * INSERTION_SORT_PAIRS ? insertionSorted(encoded) : indexSorted(encoded);
}

/** A signed request has a handful of parameters: sorted in place by insertion, with no comparator closure or index array. */
const INSERTION_SORT_PAIRS = 16;

function insertionSorted(encoded: string[]): string[] {
  for (let i = 2; i < encoded.length; i += 2) {
    const name = encoded[i]!, value = encoded[i + 1]!;
    let j = i - 2;
    for (; j >= 0 && pairAfter(encoded[j]!, encoded[j + 1]!, name, value); j -= 2) {
      encoded[j + 2] = encoded[j]!;
      encoded[j + 3] = encoded[j + 1]!;
    }
    encoded[j + 2] = name;
    encoded[j + 3] = value;
  }
  return encoded;
}

/** Whether the pair (na, va) sorts after (nb, vb): by encoded name, then encoded value. */
function pairAfter(na: string, va: string, nb: string, vb: string): boolean {
  return na !== nb ? na > nb : va > vb;
}

/** Many parameters (up to the limit): an index sort, O(n log n). */
function indexSorted(encoded: readonly string[]): string[] {
  const order: number[] = [];
  for (let i = 0; i < encoded.length; i += 2) order.push(i);
  order.sort((a, b) => {
    const na = encoded[a]!, nb = encoded[b]!;
    if (na !== nb) return na < nb ? -1 : 1;
    const va = encoded[a + 1]!, vb = encoded[b + 1]!;
    return va < vb ? -1 : va > vb ? 1 : 0;
  });
  const sorted: string[] = new Array<string>(encoded.length);
  for (let i = 0; i < order.length; i++) {
    sorted[2 * i] = encoded[order[i]!]!;
    sorted[2 * i + 1] = encoded[order[i]! + 1]!;
  }
  return sorted;
}

/**
 * `oauthEncode(normalizeParameters(params))`, built directly: the encoded names and values hold only
 * unreserved characters and `%XX`, so encoding the joined string again only turns `%` into `%25`,
 * `=` into `%3D` and `&` into `%26`; no second pass over the whole string.
 */
function encodedNormalizedParameters(params: readonly OAuth1Param[]): string {
  const encoded = sortedEncoded(params);
  let out = '';
  for (let i = 0; i < encoded.length; i += 2) {
    out += `${i === 0 ? '' : '%26'}${reEncode(encoded[i]!)}%3D${reEncode(encoded[i + 1]!)}`;
  }
  return out;
}

const PERCENT_RE = /%/g;
function reEncode(encoded: string): string {
  return encoded.includes('%') ? encoded.replace(PERCENT_RE, '%25') : encoded;
}

/**
 * §3.4.1.2: the scheme and host of the request as its client reached it (the protocol a trusted
 * proxy states, the Host lower-cased, the scheme's default port dropped: http/public-origin) and
 * the path as sent, without the query.
 * @example
 *   baseStringUri(req)  // 'https://articles.example/article/1' for GET /article/1?x=1 through a TLS proxy
 */
export function baseStringUri(req: Request): string {
  return publicOrigin(req) + pathOf(req.originalUrl || req.url || '/');
}

function pathOf(target: string): string {
  const q = target.indexOf('?');
  const withoutQuery = q === -1 ? target : target.slice(0, q);
  if (withoutQuery.startsWith('/')) return withoutQuery;
  // The absolute form (RFC 9112 §3.2.2), as a proxy would send it.
  try {
    return new URL(withoutQuery).pathname;
  } catch {
    return '/';
  }
}

/** The raw query of the request target (what follows `?`), '' when there is none. */
export function rawQueryOf(req: Request): string {
  const target = req.originalUrl || req.url || '/';
  const q = target.indexOf('?');
  return q === -1 ? '' : target.slice(q + 1);
}

/**
 * §3.4.1.1: `METHOD&encoded base string URI&encoded normalized parameters`.
 * @example
 *   signatureBaseString('GET', 'http://example.com/r%20v/X', params)  // 'GET&http%3A%2F%2Fexample.com%2Fr%2520v%2FX&…'
 */
export function signatureBaseString(method: string, uri: string, params: readonly OAuth1Param[]): string {
  return `${oauthEncode(method.toUpperCase())}&${encodedUri(uri)}&${encodedNormalizedParameters(params)}`;
}

// Encoded base string URIs: one per resource clients sign for, asked again on every request to it.
// Bounded in number and length, as what clients send fills it.
const ENCODED_URIS = new BoundedMap<string, string>(1000);
const CACHED_URI_LENGTH = 512;

function encodedUri(uri: string): string {
  let encoded = ENCODED_URIS.get(uri);
  if (encoded === undefined) {
    encoded = oauthEncode(uri);
    if (uri.length <= CACHED_URI_LENGTH) ENCODED_URIS.set(uri, encoded);
  }
  return encoded;
}
