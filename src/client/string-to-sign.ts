/**
 * @module client/string-to-sign
 * The hmac scheme's string-to-sign, shared by `signRequest` and the server's verifier so they cannot drift.
 */

export interface StringToSignParts {
  /** The request method exactly as sent (methods are case-sensitive, RFC 9110 §9.1). */
  method: string;
  /** The request target exactly as sent on the request line (path and query, never re-encoded). */
  target: string;
  /** The `Date` header value (IMF-fixdate), replay-protected form only. */
  date?: string;
  /** The nonce, replay-protected form only. */
  nonce?: string;
  /** The `Content-Digest` header value as sent, when the request carries one. */
  contentDigest?: string;
}

// Signed requests carry the current second, so under load most repeat the Date the previous one had:
// its compact form is remembered (one entry, no growth) instead of running the replace every time.
let lastDate = '';
let lastCompact = '';

function dateWithoutSpaces(date: string): string {
  if (date !== lastDate) {
    lastCompact = date.replace(/ /g, '');
    lastDate = date;
  }
  return lastCompact;
}

/**
 * Builds the string-to-sign:
 * - minimal form: `METHOD + "+" + target`
 * - replay-protected form: `METHOD + "+" + target + "+" + date-without-spaces + "+" + nonce`
 * - either form, when a Content-Digest header is sent: the above + `"+" + <Content-Digest field value>`.
 * @example
 *   formatStringToSign({ method: 'GET', target: '/articles?page=2' }) // 'GET+/articles?page=2'
 */
export function formatStringToSign(parts: StringToSignParts): string {
  let s = parts.method + '+' + parts.target;
  if (parts.date !== undefined || parts.nonce !== undefined) {
    if (parts.date === undefined || parts.nonce === undefined) throw new TypeError('formatStringToSign: date and nonce go together');
    s += '+' + dateWithoutSpaces(parts.date) + '+' + parts.nonce;
  }
  if (parts.contentDigest !== undefined) s += '+' + parts.contentDigest;
  return s;
}

/** Shortest and longest nonce of the replay-protected form. */
export const NONCE_MIN_LENGTH = 16;
export const NONCE_MAX_LENGTH = 128;
/** The characters a nonce may hold: URL-safe (the RFC 4648 §5 alphabet), as a regex class body. */
const NONCE_ALPHABET = 'A-Za-z0-9_-';
/** One character a nonce may hold. */
export const NONCE_CHAR_RE = new RegExp(`^[${NONCE_ALPHABET}]$`);
/** Nonce syntax of the replay-protected form: 16–128 URL-safe characters. */
export const NONCE_RE = new RegExp(`^[${NONCE_ALPHABET}]{${NONCE_MIN_LENGTH},${NONCE_MAX_LENGTH}}$`);
