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

/**
 * The tag the `etag` package gives a body (`"<length hex>-<sha1 base64, 27 chars>"`), computed with
 * node's one-shot `crypto.hash` where there is one: it runs for every `res.send` body, and the
 * streaming hash object costs more than hashing a short body.
 */
function etagGenerator(weak: boolean): ETagFn {
  const prefix = weak ? 'W/"' : '"';
  return (body, encoding) => {
    let length: number;
    let digest: string;
    if (typeof body === 'string' && (encoding === undefined || encoding === 'utf8' || encoding === 'utf-8') && typeof hash === 'function') {
      // A UTF-8 string is hashed as it is: no Buffer made for it.
      length = Buffer.byteLength(body, 'utf8');
      digest = hash('sha1', body, 'base64');
    } else {
      const buf = Buffer.isBuffer(body) ? body : Buffer.from(body, encoding);
      length = buf.length;
      digest = typeof hash === 'function' ? hash('sha1', buf, 'base64') : createHash('sha1').update(buf).digest('base64');
    }
    return `${prefix}${length.toString(16)}-${digest.slice(0, 27)}"`;
  };
}

/** Express's default: a weak ETag of the body. */
export const weakETag: ETagFn = etagGenerator(true);
export const strongETag: ETagFn = etagGenerator(false);

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
