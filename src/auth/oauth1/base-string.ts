/**
 * @module auth/oauth1/base-string
 * The signature base string of RFC 5849 §3.4.1: method, base string URI and normalized parameters,
 * each percent-encoded (§3.6) and joined by `&`.
 */
import { publicOrigin } from '../../http/public-origin.js';
import type { Request } from '../../http/request.js';
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
  const encoded: [string, string][] = [];
  for (const { name, value } of params) {
    if (name !== 'oauth_signature') encoded.push([oauthEncode(name), oauthEncode(value)]);
  }
  encoded.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  let out = '';
  for (let i = 0; i < encoded.length; i++) out += `${i === 0 ? '' : '&'}${encoded[i]![0]}=${encoded[i]![1]}`;
  return out;
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
  return `${oauthEncode(method.toUpperCase())}&${oauthEncode(uri)}&${oauthEncode(normalizeParameters(params))}`;
}
