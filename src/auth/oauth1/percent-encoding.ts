/**
 * @module auth/oauth1/percent-encoding
 * RFC 5849 §3.6 percent-encoding (every octet but ALPHA, DIGIT, `-`, `.`, `_`, `~`, as upper-case
 * `%XX` of its UTF-8 bytes) and the strict decoding of what clients send.
 */
import { malformedCredentials } from '../errors.js';

const UNRESERVED_RE = /^[A-Za-z0-9\-._~]*$/;
// encodeURIComponent leaves these five unencoded; §3.6 encodes them.
const SUB_DELIMS_RE = /[!'()*]/g;

/**
 * The §3.6 encoding of `value` (UTF-8 first, then every reserved octet as `%XX` with upper-case hex).
 * Throws a 400 for a lone surrogate, which has no UTF-8 form.
 * @example
 *   oauthEncode('a b&c~')   // 'a%20b%26c~'
 */
export function oauthEncode(value: string): string {
  if (UNRESERVED_RE.test(value)) return value;
  let encoded: string;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    throw malformedCredentials('OAuth parameters must be valid UTF-8');
  }
  return encoded.replace(SUB_DELIMS_RE, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const PLUS_RE = /\+/g;
// A `%` not followed by two hex digits is not percent-encoding (RFC 3986 §2.1).
const BAD_PERCENT_RE = /%(?![0-9A-Fa-f]{2})/;

/**
 * Decodes a percent-encoded value; `plusIsSpace` for the query and form bodies
 * (application/x-www-form-urlencoded, RFC 5849 §3.4.1.3.1), not for the Authorization header.
 * Throws a 400 for a stray `%` or bytes that are not UTF-8.
 * @example
 *   oauthDecode('a%20b+c', true)   // 'a b c'
 */
export function oauthDecode(value: string, plusIsSpace: boolean): string {
  const text = plusIsSpace && value.includes('+') ? value.replace(PLUS_RE, ' ') : value;
  if (!text.includes('%')) return text;
  if (BAD_PERCENT_RE.test(text)) throw malformedCredentials('Bad percent-encoding in an OAuth parameter (RFC 5849 §3.6)');
  try {
    return decodeURIComponent(text);
  } catch {
    throw malformedCredentials('An OAuth parameter is not percent-encoded UTF-8 (RFC 5849 §3.6)');
  }
}
