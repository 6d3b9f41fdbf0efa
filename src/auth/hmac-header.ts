/**
 * @module auth/hmac-header
 * Parsing of what a signed request carries: the `Authentication: hmac …` credentials and the
 * strict IMF-fixdate of its `Date` header. Both run on every signed request.
 */
import { NONCE_CHAR_RE, NONCE_MAX_LENGTH, NONCE_MIN_LENGTH } from '../client/string-to-sign.js';
import { invalidCredentials, malformedCredentials } from './errors.js';
import { parseImfFixdate as parseHttpImfFixdate } from '../http/http-date.js';

/** The parts of `hmac <user>:<digest>` / `hmac <user>:<nonce>:<digest>`. */
export interface ParsedHmacHeader {
  user: string;
  nonce: string | undefined;
  digest: string;
}

// Character classes of the credentials, looked up per character (visible ASCII only). The nonce class
// comes from client/string-to-sign, which defines the nonce for signers too.
const VISIBLE = 1;
const NONCE_CHAR = 2;
const BASE64_CHAR = 4;
const CHAR_CLASS = new Uint8Array(128);
for (let c = 0x21; c <= 0x7e; c++) {
  const ch = String.fromCharCode(c);
  CHAR_CLASS[c] = VISIBLE | (NONCE_CHAR_RE.test(ch) ? NONCE_CHAR : 0) | (/[A-Za-z0-9+/]/.test(ch) ? BASE64_CHAR : 0);
}

const WHITESPACE_RE = /\s/;

/**
 * Parses `hmac <user>:<digest>` / `hmac <user>:<nonce>:<digest>`; 400 when malformed, 401 for a bad
 * nonce. The scheme name is case-insensitive (RFC 9110 §11.1); the credentials are one token of
 * visible ASCII; the digest is 1–128 base64 characters and at most two `=`; a nonce is 16–128
 * URL-safe characters. One hand-written scan with a class table: this runs on every signed request,
 * and regular expressions, a lower-cased copy of the scheme name and a separate nonce test cost
 * about as much again (test/auth/hmac-header checks it against the grammar's regexes). The scan ANDs
 * the classes of each colon-separated part as it goes, so no part is read twice; `=` is left out of
 * the AND and counted instead, since only the digest may hold it, and only at its end.
 */
export function parseHmacHeader(header: string, challenge: string): ParsedHmacHeader {
  const length = header.length;
  if (
    length < 6 || (header.charCodeAt(0) | 0x20) !== 104 || (header.charCodeAt(1) | 0x20) !== 109 ||
    (header.charCodeAt(2) | 0x20) !== 97 || (header.charCodeAt(3) | 0x20) !== 99 || header.charCodeAt(4) !== 32
  ) {
    throw malformedCredentials('Malformed hmac credentials');
  }
  let start = 5;
  while (start < length && header.charCodeAt(start) === 32) start++;
  let first = -1;
  let last = -1;
  let colons = 0;
  /** AND of the classes of the current part's characters other than `=`. */
  let part = VISIBLE | NONCE_CHAR | BASE64_CHAR;
  /** The current part's `=` count, and where its first `=` is. */
  let pads = 0;
  let firstPad = -1;
  /** What the middle part (the nonce, when there are two colons) ended with. */
  let middle = 0;
  let middlePads = 0;
  /** The first character outside visible ASCII that is not whitespace (a bad nonce when it is in one). */
  let stray = -1;
  for (let i = start; i < length; i++) {
    const c = header.charCodeAt(i);
    const cls = c > 0x7e ? 0 : CHAR_CLASS[c]!;
    if (cls === 0) {
      // Whitespace splits the credentials: not one token, so the header is malformed.
      if (WHITESPACE_RE.test(header[i]!)) throw malformedCredentials('Malformed hmac credentials');
      if (stray === -1) stray = i;
      part = 0;
      continue;
    }
    if (c === 58 /* : */) {
      if (first === -1) first = i;
      else {
        middle = part;
        middlePads = pads;
      }
      last = i;
      colons++;
      part = VISIBLE | NONCE_CHAR | BASE64_CHAR;
      pads = 0;
      firstPad = -1;
    } else if (c === 61 /* = */) {
      if (pads++ === 0) firstPad = i;
    } else part &= cls;
  }
  if (colons !== 1 && colons !== 2) throw malformedCredentials('Malformed hmac credentials');
  // A stray character is a malformed header, unless it is in the nonce: that is a bad nonce (401).
  if (stray !== -1 && !(colons === 2 && stray > first && stray < last)) throw malformedCredentials('Malformed hmac credentials');
  const userLength = first - start;
  // The digest's `=` (at most two) must end it: the first one sits `pads` characters from the end.
  const digestChars = length - last - 1 - pads;
  if (
    userLength === 0 || userLength > 256 || digestChars === 0 || digestChars > 128 || (part & BASE64_CHAR) === 0 ||
    pads > 2 || (pads > 0 && firstPad !== length - pads)
  ) {
    throw malformedCredentials('Malformed hmac credentials');
  }
  let nonce: string | undefined;
  if (colons === 2) {
    const nonceLength = last - first - 1;
    if (nonceLength < NONCE_MIN_LENGTH || nonceLength > NONCE_MAX_LENGTH || middlePads > 0 || (middle & NONCE_CHAR) === 0) {
      throw invalidCredentials(challenge, undefined, `Nonce must be ${NONCE_MIN_LENGTH}-${NONCE_MAX_LENGTH} URL-safe characters`);
    }
    nonce = header.slice(first + 1, last);
  }
  return { user: header.slice(start, first), nonce, digest: header.slice(last + 1) };
}

// Clients sign with the current second, so under load most requests carry the Date the previous
// one did: the last valid value is remembered (one entry, no growth).
let lastDateText = '';
let lastDateMs = 0;

/** Milliseconds of a strict IMF-fixdate (weekday must agree with the date), else undefined. */
export function parseImfFixdate(value: string): number | undefined {
  if (value === lastDateText) return lastDateMs;
  const ms = parseHttpImfFixdate(value);
  if (ms === undefined) return undefined;
  lastDateText = value;
  lastDateMs = ms;
  return ms;
}
