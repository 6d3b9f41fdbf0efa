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
const SCHEME_NAME_LENGTH = 'OAuth'.length;

// §3.5.1: `name="value"` pairs (RFC 2617 auth-param, the value always quoted), separated by commas,
// with optional spaces and tabs around each part; empty elements (`, ,`) are skipped. The values are
// percent-encoded (§3.6), so a quoted-string never needs `\` escapes (one is refused). Scanned by
// character code, not with a regex per pair: this runs on every signed request.
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TCHAR[c.charCodeAt(0)] = 1;
const SPACE = 0x20;
const TAB = 0x09;
const COMMA = 0x2c;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const PERCENT = 0x25;

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
  if (!SCHEME_RE.test(value)) throw malformedCredentials('Expected an Authorization header of the OAuth scheme');
  const params: OAuth1Param[] = [];
  const names = new HeaderNames();
  const end = value.length;
  // A quoted value never holds `\` (§3.6 percent-encodes it): the first one anywhere is where the header stops parsing.
  const backslash = value.indexOf('\\');
  let nextPercent = value.indexOf('%');
  let at = SCHEME_NAME_LENGTH;
  for (;;) {
    at = skipSpace(value, at);
    if (at >= end) break;
    if (value.charCodeAt(at) === COMMA) {
      at++;
      continue;
    }
    const nameStart = at;
    // Whether the name holds a `%`, so a name without one is not handed to the decoder.
    let nameEncoded = false;
    for (; at < end; at++) {
      const c = value.charCodeAt(at);
      if (!isTchar(c)) break;
      if (c === PERCENT) nameEncoded = true;
    }
    if (at === nameStart) {
      // Trailing white space of another kind is tolerated, as it always was; anything else is not a pair.
      if (value.slice(at).trim() === '') break;
      throw malformedHeader();
    }
    const rawName = value.slice(nameStart, at);
    at = skipSpace(value, at);
    if (value.charCodeAt(at) !== EQUALS) throw malformedHeader();
    at = skipSpace(value, at + 1);
    if (value.charCodeAt(at) !== QUOTE) throw malformedHeader();
    const valueStart = at + 1;
    // The closing quote and any `%` found by the native indexOf, not a loop of charCodeAt: the values
    // are most of the header. `%` is searched for again only once the last one found is passed.
    at = value.indexOf('"', valueStart);
    if (at === -1 || (backslash !== -1 && backslash < at)) throw malformedHeader();
    if (nextPercent !== -1 && nextPercent < valueStart) nextPercent = value.indexOf('%', valueStart);
    const valueEncoded = nextPercent !== -1 && nextPercent < at;
    const rawValue = value.slice(valueStart, at);
    at = skipSpace(value, at + 1);
    if (at < end) {
      if (value.charCodeAt(at) !== COMMA) throw malformedHeader();
      at++;
    }
    const name = nameEncoded ? oauthDecode(rawName, false) : rawName;
    if (!names.add(name, params)) throw malformedCredentials(`The OAuth parameter ${name} is given twice (RFC 5849 §3.5.1)`);
    // §3.4.1.3.1: realm is the header's own, not a parameter of the request.
    if (name !== 'realm') params.push({ name, value: valueEncoded ? oauthDecode(rawValue, false) : rawValue });
    if (params.length > limits.parameters) throw tooManyParameters(limits);
  }
  return params;
}

/** Up to this many parameters, a name given twice is found by comparing with the names pushed so far. */
const SCAN_NAMES = 16;

/**
 * The names a header has given, for §3.5.1's "each once". A header carries a handful of parameters,
 * which a scan over those already parsed checks without a Set per request; a long one gets a Set.
 */
class HeaderNames {
  private realm = false;
  private set: Set<string> | undefined;

  /** False when `name` was given before; `params` holds every earlier name but `realm`. */
  add(name: string, params: readonly OAuth1Param[]): boolean {
    if (name === 'realm') {
      if (this.realm) return false;
      this.realm = true;
      return true;
    }
    if (this.set === undefined) {
      if (params.length < SCAN_NAMES) {
        for (let i = 0; i < params.length; i++) if (params[i]!.name === name) return false;
        return true;
      }
      this.set = new Set(params.map((p) => p.name));
    }
    if (this.set.has(name)) return false;
    this.set.add(name);
    return true;
  }
}

function isTchar(c: number): boolean {
  return c < 128 && TCHAR[c] === 1;
}

function skipSpace(value: string, at: number): number {
  let c: number;
  while (at < value.length && ((c = value.charCodeAt(at)) === SPACE || c === TAB)) at++;
  return at;
}

function malformedHeader(): HttpError {
  return malformedCredentials('Malformed OAuth Authorization header: expected name="value" pairs separated by commas (RFC 5849 §3.5.1)');
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
    // The header parser has already refused a name given twice there.
    if (place !== 'header' && protocol.has(name)) throw malformedCredentials(`The OAuth parameter ${name} is given twice (RFC 5849 §3.5)`);
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
