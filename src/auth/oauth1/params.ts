/**
 * @module auth/oauth1/params
 * The request parameters RFC 5849 §3.4.1.3.1 signs, from the three places they may be: the
 * `Authorization: OAuth` header (§3.5.1, `realm` excluded), the query and a form-encoded body
 * (§3.5.2, §3.5.3), each decoded; and the protocol (`oauth_`) parameters among them (§3.5: in
 * one place only, each once).
 */
import { HttpError } from '../../errors/http-error.js';
import { malformedCredentials } from '../errors.js';
import type { OAuth1Limits } from './limits.js';
import { oauthDecode } from './percent-encoding.js';

/** One decoded name/value pair; duplicates are kept (§3.4.1.3.1). */
export interface OAuth1Param {
  name: string;
  value: string;
}

export type OAuth1ParamPlace = 'header' | 'query' | 'body';

/** The request's parameters: all of them for the base string, and the protocol ones by name. */
export interface CollectedParams {
  all: OAuth1Param[];
  /** `oauth_*` parameters by name (`oauth_signature` included), from `protocolPlace`. */
  protocol: Map<string, string>;
  protocolPlace: OAuth1ParamPlace | undefined;
}

const SCHEME_RE = /^OAuth(?:[ \t]+|$)/i;
// §3.5.1: `name="value"` pairs (RFC 2617 auth-param, the value always quoted), separated by commas.
// The values are percent-encoded (§3.6), so a quoted-string never needs `\` escapes.
const PAIR_RE = /[ \t]*([!#$%&'*+\-.^_`|~0-9A-Za-z]+)[ \t]*=[ \t]*"([^"\\]*)"[ \t]*(?:,|$)/y;
const EMPTY_ELEMENT_RE = /[ \t]*,/y;

/** True when an Authorization value names the OAuth scheme. */
export function isOAuthAuthorization(value: string): boolean {
  return SCHEME_RE.test(value);
}

/**
 * The header's parameters in order, decoded, without `realm`. Throws 400 for anything not of the
 * §3.5.1 form and for a name given twice; 431 over `limits.headerLength`.
 * @example
 *   parseOAuthHeader('OAuth realm="x", oauth_nonce="a%20b"', limits)  // [{ name: 'oauth_nonce', value: 'a b' }]
 */
export function parseOAuthHeader(value: string, limits: OAuth1Limits): OAuth1Param[] {
  if (value.length > limits.headerLength) {
    throw new HttpError(431, `The OAuth Authorization header is longer than ${limits.headerLength} characters`, { code: 'ROA_ERR_OAUTH1_HEADER_TOO_LARGE' });
  }
  const scheme = SCHEME_RE.exec(value);
  if (scheme === null) throw malformedCredentials('Expected an Authorization header of the OAuth scheme');
  const params: OAuth1Param[] = [];
  const seen = new Set<string>();
  let at = scheme[0].length;
  while (at < value.length) {
    EMPTY_ELEMENT_RE.lastIndex = at;
    if (EMPTY_ELEMENT_RE.test(value)) {
      at = EMPTY_ELEMENT_RE.lastIndex;
      continue;
    }
    PAIR_RE.lastIndex = at;
    const m = PAIR_RE.exec(value);
    if (m === null) {
      if (value.slice(at).trim() === '') break;
      throw malformedCredentials('Malformed OAuth Authorization header: expected name="value" pairs separated by commas (RFC 5849 §3.5.1)');
    }
    at = PAIR_RE.lastIndex;
    const name = oauthDecode(m[1]!, false);
    if (seen.has(name)) throw malformedCredentials(`The OAuth parameter ${name} is given twice (RFC 5849 §3.5.1)`);
    seen.add(name);
    // §3.4.1.3.1: realm is the header's own, not a parameter of the request.
    if (name !== 'realm') params.push({ name, value: oauthDecode(m[2]!, false) });
    if (params.length > limits.parameters) throw tooManyParameters(limits);
  }
  return params;
}

/**
 * The pairs of an application/x-www-form-urlencoded string (a query or a body), decoded with `+`
 * as space, appended to `out`. Empty elements (`a&&b`) are skipped; `a` alone is `a` with an empty value.
 */
export function parseFormPairs(input: string, out: OAuth1Param[], limits: OAuth1Limits): void {
  if (input === '') return;
  for (const part of input.split('&')) {
    if (part === '') continue;
    if (out.length >= limits.parameters) throw tooManyParameters(limits);
    const eq = part.indexOf('=');
    const rawName = eq === -1 ? part : part.slice(0, eq);
    const rawValue = eq === -1 ? '' : part.slice(eq + 1);
    out.push({ name: oauthDecode(rawName, true), value: oauthDecode(rawValue, true) });
  }
}

/**
 * Every parameter of the request and its protocol parameters. `header` is the Authorization value
 * when it is of the OAuth scheme; `query` the raw query (after `?`); `body` a form body's text.
 * Throws 400 for a protocol parameter given twice or in more than one place (RFC 5849 §3.5).
 */
export function collectParams(header: string | undefined, query: string, body: string | undefined, limits: OAuth1Limits): CollectedParams {
  const all = header === undefined ? [] : parseOAuthHeader(header, limits);
  const headerCount = all.length;
  parseFormPairs(query, all, limits);
  const queryCount = all.length;
  if (body !== undefined) parseFormPairs(body, all, limits);
  const protocol = new Map<string, string>();
  let protocolPlace: OAuth1ParamPlace | undefined;
  for (let i = 0; i < all.length; i++) {
    const { name, value } = all[i]!;
    if (!name.startsWith('oauth_')) continue;
    const place: OAuth1ParamPlace = i < headerCount ? 'header' : i < queryCount ? 'query' : 'body';
    if (protocolPlace !== undefined && protocolPlace !== place) {
      throw malformedCredentials(`OAuth protocol parameters were sent in the ${protocolPlace} and in the ${place}: send them in one place (RFC 5849 §3.5)`);
    }
    protocolPlace = place;
    if (protocol.has(name)) throw malformedCredentials(`The OAuth parameter ${name} is given twice (RFC 5849 §3.5)`);
    if (value.length > limits.protocolValueLength) {
      throw malformedCredentials(`The OAuth parameter ${name} is longer than ${limits.protocolValueLength} characters`);
    }
    protocol.set(name, value);
  }
  return { all, protocol, protocolPlace };
}

function tooManyParameters(limits: OAuth1Limits): HttpError {
  return new HttpError(400, `More than ${limits.parameters} parameters in an OAuth-signed request`, { code: 'ROA_ERR_OAUTH1_TOO_MANY_PARAMETERS' });
}
