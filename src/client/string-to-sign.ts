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

// A Date as it appears in the replay-protected string: an IMF-fixdate (RFC 9110 §5.6.7) without spaces.
const COMPACT_DATE_RE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),\d{2}(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\d{4}\d{2}:\d{2}:\d{2}GMT$/;

function isDatePiece(piece: string): boolean {
  return piece.length === 24 && COMPACT_DATE_RE.test(piece);
}

/** Whether a `+`-separated piece of `value` has the shape of a (compacted) Date; the first piece only if `first`. */
function hasDatePiece(value: string | undefined, first: boolean): boolean {
  if (value === undefined) return false;
  if (!value.includes('+')) return first && isDatePiece(value);
  return value.split('+').some((piece, i) => (first || i > 0) && isDatePiece(piece));
}

/**
 * Why these parts must not be signed or accepted, or undefined when they may. The fields are joined
 * with `+`, which a target (and a Content-Digest's base64) may hold too, so one string could be read
 * as several forms: a replay-protected signature over `/a` is also the minimal one over
 * `/a+<Date>+<nonce>`; a minimal one with Content-Digest over `/a` is also the minimal one without
 * over `/a+<Content-Digest>`. Honest strings stay as they are; instead the forms are made disjoint,
 * so that any one string is accepted in at most one form:
 * - a piece shaped like a compacted Date may stand only where the replay-protected form puts it: a
 *   target or Content-Digest holding one is refused in every form. A replay-protected string then has
 *   exactly one Date piece, right before the nonce, and a minimal one none.
 * - in the minimal form, where no Date anchors the target's end, the target must not read as a
 *   shorter target plus a Content-Digest: no suffix after one of its `+` (followed by the request's
 *   own Content-Digest, if any) may be a Content-Digest field (`isDigestField`). Of all ways to
 *   split a string into target and digest, only the first valid one is then accepted.
 * @example
 *   formConflict({ method: 'POST', target: '/a+Sun,22Nov202610:00:00GMT+abcdefghijklmnop' }, isField) // a reason
 */
export function formConflict(parts: StringToSignParts, isDigestField: (value: string) => boolean): string | undefined {
  // A target's first piece starts with "/" (or is "*"); a Content-Digest's first piece follows a `+`.
  if (hasDatePiece(parts.target, false) || hasDatePiece(parts.contentDigest, true)) {
    return 'The target or Content-Digest holds a piece shaped like the signed Date';
  }
  if (parts.nonce !== undefined) return undefined;
  const target = parts.target;
  const tail = parts.contentDigest === undefined ? '' : '+' + parts.contentDigest;
  for (let plus = target.indexOf('+'); plus !== -1; plus = target.indexOf('+', plus + 1)) {
    if (isDigestField(target.slice(plus + 1) + tail)) return 'The target ends in a piece shaped like a Content-Digest';
  }
  return undefined;
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
