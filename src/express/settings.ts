/**
 * @module express/settings
 * The settings Express 4 compiles into functions when they are set (`etag` → `etag fn`,
 * `trust proxy` → `trust proxy fn`; `query parser` is express/query's), so requests never parse
 * a setting, and a malformed value fails at `app.set`.
 */
import { createHash, hash } from 'node:crypto';
import proxyaddr from 'proxy-addr';

export type ETagFn = (body: string | Buffer, encoding?: BufferEncoding) => string;
export type TrustFn = (addr: string, hop: number) => boolean;

/** Memo slots for short string bodies, chosen by the body's length (a power of two). */
const MEMO_SLOTS = 64;
/** Longer string bodies are not remembered: comparing them costs more, and they would stay in memory. */
const MEMO_MAX_LENGTH = 1000;

/**
 * Tags UTF-8 strings as the `etag` package does (`"<length hex>-<sha1 base64, 27 chars>"`), with
 * node's one-shot `crypto.hash` (the streaming hash object costs more than hashing a short body).
 * Handlers often send the same short body again (fixed text, a cached document): the last tag per
 * length is remembered, and a body equal to the one remembered in its slot gets that tag back
 * without hashing (the tag is a function of the bytes, so it is the same tag).
 */
class StringTagger {
  private readonly bodies: Array<string | undefined> = new Array<string | undefined>(MEMO_SLOTS).fill(undefined);
  private readonly tags: string[] = new Array<string>(MEMO_SLOTS).fill('');

  constructor(private readonly prefix: string) {}

  /** The tag of `body`, whose UTF-8 length is `byteLength`. */
  tag(body: string, byteLength: number): string {
    if (body.length >= MEMO_MAX_LENGTH) return this.compute(body, byteLength);
    const slot = body.length & (MEMO_SLOTS - 1);
    if (this.bodies[slot] === body) return this.tags[slot]!;
    const tag = this.compute(body, byteLength);
    this.bodies[slot] = body;
    this.tags[slot] = tag;
    return tag;
  }

  private compute(body: string, byteLength: number): string {
    return `${this.prefix}${byteLength.toString(16)}-${hash('sha1', body, 'base64').slice(0, 27)}"`;
  }
}

const canHashStrings = typeof hash === 'function';
const weakStrings = new StringTagger('W/"');
const strongStrings = new StringTagger('"');

function etagGenerator(strings: StringTagger, prefix: string): ETagFn {
  return (body, encoding) => {
    if (typeof body === 'string' && (encoding === undefined || encoding === 'utf8' || encoding === 'utf-8') && canHashStrings) {
      // A UTF-8 string is hashed as it is: no Buffer made for it.
      return strings.tag(body, Buffer.byteLength(body, 'utf8'));
    }
    const buf = Buffer.isBuffer(body) ? body : Buffer.from(body, encoding);
    const digest = canHashStrings ? hash('sha1', buf, 'base64') : createHash('sha1').update(buf).digest('base64');
    return `${prefix}${buf.length.toString(16)}-${digest.slice(0, 27)}"`;
  };
}

/** Express's default: a weak ETag of the body. */
export const weakETag: ETagFn = etagGenerator(weakStrings, 'W/"');
export const strongETag: ETagFn = etagGenerator(strongStrings, '"');

/**
 * The built-in `etagFn`'s tag of a UTF-8 string whose byte length the caller already has, or
 * undefined for any other function (which then gets the body itself).
 */
export function builtInStringETag(etagFn: ETagFn, body: string, byteLength: number): string | undefined {
  if (!canHashStrings) return undefined;
  if (etagFn === weakETag) return weakStrings.tag(body, byteLength);
  if (etagFn === strongETag) return strongStrings.tag(body, byteLength);
  return undefined;
}

/** `etag`: true/'weak', 'strong', false (none) or a function `(body, encoding) => tag`. */
export function compileETag(value: unknown): ETagFn | undefined {
  if (typeof value === 'function') return value as ETagFn;
  switch (value) {
    case true:
    case 'weak':
      return weakETag;
    case 'strong':
      return strongETag;
    case false:
      return undefined;
    default:
      throw new TypeError(`unknown value for etag function: ${String(value)}`);
  }
}

/**
 * `trust proxy`: true (every hop), a hop count, a function, or a comma-separated string / array of
 * addresses, CIDRs and the names proxy-addr knows. Always a function, as Express's: false trusts none.
 */
export function compileTrust(value: unknown): TrustFn {
  if (typeof value === 'function') return value as TrustFn;
  if (value === true) return () => true;
  if (typeof value === 'number') return (_addr, hop) => hop < value;
  const list = typeof value === 'string' ? value.split(',').map((v) => v.trim()) : value;
  return proxyaddr.compile((list || []) as string[]);
}
