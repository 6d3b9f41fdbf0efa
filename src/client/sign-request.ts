/** @module client/sign-request Signs a request for roa's `hmac` scheme (header `Authentication`). */
import { createHmac, randomBytes } from 'node:crypto';
import { contentDigest } from './content-digest.js';
import { formatStringToSign, formConflict, NONCE_RE } from './string-to-sign.js';

// A Content-Digest as the server reads one: a Dictionary whose first member is a Byte Sequence (RFC 9530 §2).
const DIGEST_FIELD_RE = /^[a-z*][a-z0-9_.*-]*=:[A-Za-z0-9+/]*={0,2}:(?:[;,]|$)/;

export interface SignRequestOptions {
  method: string;
  /**
   * The request target as it will be sent: path and query (`/articles?page=2`). A full URL (string or
   * `URL`) is reduced to its path and query. Sign exactly what goes on the request line.
   */
  target: string | URL;
  /** When given, a `Content-Digest` (sha-256) is sent and signed. */
  body?: string | Uint8Array;
  user: string;
  /** The user's HMAC secret as issued by `roa user hmac` (its UTF-8 bytes are the key), or raw key bytes. */
  secret: string | Uint8Array;
  /** Signing time; default now. */
  date?: Date;
  /** Replay-protection nonce; default 16 random bytes, base64url. */
  nonce?: string;
  /** Minimal form (no Date, no nonce: replayable; servers may refuse it for unsafe methods). */
  minimal?: boolean;
}

export interface SignedHeaders {
  Authentication: string;
  Date?: string;
  'Content-Digest'?: string;
}

/** What the positional form takes after the secret. */
export type SignExtras = Pick<SignRequestOptions, 'date' | 'nonce' | 'minimal'>;

/**
 * Headers that authenticate one request with roa's `hmac` scheme.
 * @example
 *   const headers = signRequest({ method: 'POST', target: '/articles', body, user: 'ann', secret });
 *   await fetch('https://api.example/articles', { method: 'POST', body, headers: { ...headers, 'Content-Type': 'application/json' } });
 */
export function signRequest(options: SignRequestOptions): SignedHeaders;
/**
 * The same, with the parts in the order a request is written: `signRequest('GET', '/articles', undefined, 'ann', secret)`.
 * `extra` takes the rest of the options (`date`, `nonce`, `minimal`).
 */
export function signRequest(
  method: string,
  target: string | URL,
  body: string | Uint8Array | undefined,
  user: string,
  secret: string | Uint8Array,
  extra?: SignExtras,
): SignedHeaders;
export function signRequest(
  first: SignRequestOptions | string,
  target?: string | URL,
  body?: string | Uint8Array,
  user?: string,
  secret?: string | Uint8Array,
  extra?: SignExtras,
): SignedHeaders {
  if (typeof first !== 'string') return signWith(first);
  if (target === undefined || user === undefined || secret === undefined) {
    throw new TypeError('signRequest(method, target, body, user, secret): target, user and secret are required');
  }
  return signWith({ ...extra, method: first, target, body, user, secret });
}

function signWith(options: SignRequestOptions): SignedHeaders {
  if (typeof options.method !== 'string' || options.method === '') throw new TypeError('signRequest: method must be a non-empty string');
  const method = options.method.toUpperCase();
  const target = targetOf(options.target);
  if (options.user === '' || /[:\s]/.test(options.user)) throw new TypeError('signRequest: user must be non-empty without ":" or whitespace');
  // A target that could not go on a request line as it is would be signed in a form no server receives.
  if (target === '' || /[\x00-\x20\x7f-\uffff]/.test(target)) throw new TypeError('signRequest: target must be the request target as sent: visible ASCII, percent-encoded');
  // Origin form (RFC 9112 §3.2.1) or `*` for OPTIONS: a relative path would be signed as no server receives it.
  if (target[0] !== '/' && target !== '*') throw new TypeError('signRequest: target must start with "/" (path and query) or be "*"');
  if (options.date !== undefined && !(options.date instanceof Date && Number.isFinite(options.date.getTime()))) {
    throw new TypeError('signRequest: date must be a valid Date');
  }
  if (options.secret.length === 0) throw new TypeError('signRequest: secret must not be empty');
  const headers: Partial<SignedHeaders> = {};
  const digest = options.body === undefined ? undefined : contentDigest(options.body);
  if (digest !== undefined) headers['Content-Digest'] = digest;
  let stringToSign: string;
  let credentials: string;
  if (options.minimal === true) {
    const parts = { method, target, contentDigest: digest };
    // The server refuses a string that could be read as another form; say so here rather than with its 401.
    const conflict = formConflict(parts, (v) => DIGEST_FIELD_RE.test(v));
    if (conflict !== undefined) throw new TypeError(`signRequest: ${conflict}; sign it in the replay-protected form`);
    stringToSign = formatStringToSign(parts);
    credentials = options.user;
  } else {
    const date = (options.date ?? new Date()).toUTCString(); // IMF-fixdate, RFC 9110 §5.6.7
    const nonce = options.nonce ?? randomBytes(16).toString('base64url');
    if (!NONCE_RE.test(nonce)) throw new TypeError('signRequest: nonce must be 16-128 characters of [A-Za-z0-9_-]');
    headers.Date = date;
    const parts = { method, target, date, nonce, contentDigest: digest };
    const conflict = formConflict(parts, (v) => DIGEST_FIELD_RE.test(v));
    if (conflict !== undefined) throw new TypeError(`signRequest: ${conflict}`);
    stringToSign = formatStringToSign(parts);
    credentials = `${options.user}:${nonce}`;
  }
  const mac = createHmac('sha256', options.secret).update(stringToSign, 'utf8').digest('base64');
  headers.Authentication = `hmac ${credentials}:${mac}`;
  return headers as SignedHeaders;
}

function targetOf(target: string | URL): string {
  if (typeof target !== 'string') return target.pathname + target.search;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    const u = new URL(target);
    return u.pathname + u.search;
  }
  return target;
}
