/**
 * @module middleware/compression
 * Response compression by `Accept-Encoding` (RFC 9110 §8.4, §12.5.3): gzip or br for text, XML and
 * JSON bodies from `threshold` bytes up, `Vary: Accept-Encoding` on every compressible response,
 * strong ETags suffixed per coding (http/coded-etag), compressed bodies remembered per ETag.
 */
import { constants, createBrotliCompress, createGzip, type BrotliCompress, type Gzip } from 'node:zlib';
import type { OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import Negotiator from 'negotiator';
import { append as appendVary } from 'vary';
import { parseByteLimit } from '../http/body.js';
import isCompressible from 'compressible';
import { fieldIndex, isFieldName } from '../http/field-name.js';
import { mediaTypeOf } from '../http/mime.js';
import { codedEtag, codingOfEtag, identityEtag, withoutCodingSuffixes, type ResponseCoding } from '../http/coded-etag.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Head, Response } from '../http/response.js';
import { BoundedMap } from '../util/bounded-map.js';
import { compress, compressSync, type CodingLevels } from './compress-body.js';

export interface CompressionOptions {
  /** Smallest body compressed, bytes or `1kb` (default 1 KiB, as Express's `compression`). */
  threshold?: number | string;
  /** gzip level 1-9 (default 6). */
  gzipLevel?: number;
  /** br quality 0-11 (default 4: near gzip's speed with smaller output; 11 is far slower). */
  brotliQuality?: number;
  /** Compressed bodies remembered per URL, ETag and coding (default 256; 0 = none). */
  memoEntries?: number;
  /** Largest compressed body remembered (default 32 KiB). */
  memoMaxBytes?: number;
}

/** One response's coding decision and, while compressing, its pending head or stream. */
interface Coding {
  /** The coding chosen for this request by Accept-Encoding, or undefined (identity). */
  offered: ResponseCoding | undefined;
  /** Decided: the head has been looked at (compress or pass through). */
  decided: boolean;
  /** Compressing: the head waits for the body (its Content-Length is the compressed one). */
  pending: { status: number; reason: string | undefined; headers: Head | undefined } | undefined;
  chosen: ResponseCoding | undefined;
  etag: string | undefined;
  stream: Gzip | BrotliCompress | undefined;
  /** If-None-Match named a coded tag: a 304 echoes it (RFC 9110 §15.4.5). */
  codedConditional: boolean;
}

type WriteHead = (this: Response, status: number, reason?: string | Head, headers?: Head) => Response;
type Write = Response['write'];
type End = Response['end'];

/** Preferred on equal q-values: br's output is smaller; the gateway asks for gzip alone. */
const PREFERRED: ResponseCoding[] = ['br', 'gzip'];
const OFFERS = ['br', 'gzip', 'identity'];

/**
 * Compresses responses by the request's Accept-Encoding.
 * @example
 *   app.use(compression({ threshold: '1kb' }))
 */
export function compression(options: CompressionOptions = {}) {
  const threshold = parseByteLimit(options.threshold ?? 1024);
  const levels: CodingLevels = { gzip: options.gzipLevel ?? 6, br: options.brotliQuality ?? 4 };
  if (!(levels.gzip >= 1 && levels.gzip <= 9 && levels.br >= 0 && levels.br <= 11)) {
    throw new TypeError('roa: compression({ gzipLevel }) must be 1-9 and brotliQuality 0-11');
  }
  const memoEntries = options.memoEntries ?? 256;
  const memoMax = options.memoMaxBytes ?? 32 * 1024;
  const memo = memoEntries > 0 ? new BoundedMap<string, Buffer>(memoEntries) : undefined;
  // Clients send few distinct Accept-Encoding values: negotiator's answer is remembered per value.
  const chosenFor = new BoundedMap<string, ResponseCoding | null>(256);

  const negotiate = (ae: string): ResponseCoding | undefined => {
    let c = chosenFor.get(ae);
    if (c === undefined) {
      // negotiator 1.x takes the server's preference for ties; its published types predate it.
      const encodings = Negotiator.prototype.encodings as unknown as (this: Negotiator, offers: string[], o: { preferred: string[] }) => string[];
      const best = encodings.call(new Negotiator({ headers: { 'accept-encoding': ae } }), OFFERS, { preferred: PREFERRED })[0];
      c = best === 'br' || best === 'gzip' ? best : null;
      chosenFor.set(ae, c);
    }
    return c ?? undefined;
  };

  return (req: Request, res: Response, next: NextFunction): void => {
    const h = req.headers;
    const ae = h['accept-encoding'];
    const offered = ae === undefined ? undefined : negotiate(ae);
    let codedConditional = false;
    // A tag of a coded form names the same entity for the handler's decisions (conditional PUT
    // with If-Match uses strong comparison: the suffix must go, not the strength).
    const im = h['if-match'];
    if (im !== undefined) h['if-match'] = withoutCodingSuffixes(im);
    const inm = h['if-none-match'];
    if (inm !== undefined) {
      const plain = withoutCodingSuffixes(inm);
      codedConditional = plain !== inm;
      h['if-none-match'] = plain;
    }
    if (offered === undefined) {
      // Identity for this request (no Accept-Encoding, the benchmarks' case): only Vary to add, by
      // a shared filter in the response's own slot (no closure, no field added to the response).
      res.addHeadFilter(varyForIdentity);
      next();
      return;
    }
    const c: Coding = { offered, decided: false, pending: undefined, chosen: undefined, etag: undefined, stream: undefined, codedConditional };
    const writeHead = res.writeHead as unknown as WriteHead;
    const write = res.write as Write;
    const end = res.end as End;

    res.writeHead = function (this: Response, status: number, reason?: string | Head, headers?: Head): Response {
      if (typeof reason !== 'string') {
        headers = reason;
        reason = undefined;
      }
      const passed = decide(this, req, c, status, headers);
      if (c.pending !== undefined) {
        // The head leaves with the body; handlers and logs see the status already.
        c.pending = { status, reason, headers: passed };
        this.statusCode = status;
        return this;
      }
      return reason === undefined ? writeHead.call(this, status, passed) : writeHead.call(this, status, reason, passed);
    } as unknown as Response['writeHead'];

    res.write = function (this: Response, chunk: unknown, encoding?: unknown, cb?: unknown) {
      if (!c.decided) this.writeHead(this.statusCode);
      if (c.pending === undefined && c.stream === undefined) return (write as (...a: unknown[]) => boolean).call(this, chunk, encoding, cb);
      const stream = c.stream ?? startStream(this, c, levels, writeHead, write, end);
      return stream.write(toBuffer(chunk, encoding), typeof cb === 'function' ? (cb as () => void) : typeof encoding === 'function' ? (encoding as () => void) : undefined);
    } as Write;

    res.end = function (this: Response, chunk?: unknown, encoding?: unknown, cb?: unknown) {
      if (typeof chunk === 'function') {
        cb = chunk;
        chunk = undefined;
      } else if (typeof encoding === 'function') {
        cb = encoding;
        encoding = undefined;
      }
      if (!c.decided) this.writeHead(this.statusCode);
      const done = typeof cb === 'function' ? (cb as () => void) : undefined;
      if (c.stream !== undefined) {
        if (chunk !== undefined && chunk !== null) c.stream.end(toBuffer(chunk, encoding));
        else c.stream.end();
        if (done !== undefined) this.once('finish', done);
        return this;
      }
      if (c.pending === undefined) return (end as (...a: unknown[]) => Response).call(this, chunk, encoding, done);
      const body = chunk === undefined || chunk === null ? Buffer.alloc(0) : toBuffer(chunk, encoding);
      sendWhole(this, c, body, { memo, memoMax, levels, url: req.originalUrl ?? req.url ?? '' }, writeHead, end, done);
      return this;
    } as End;
    next();
  };

  /** Looks at the head once: adds Vary, and when the body is to be compressed, rewrites the coding fields. */
  function decide(res: Response, req: Request, c: Coding, status: number, headers: Head | undefined): Head | undefined {
    c.decided = true;
    if (status < 200 || status === 204) return headers;
    const fields = new Fields(res, headers);
    if (status === 304) {
      // RFC 9110 §15.4.5: the Vary a 200 would carry (a cache merges a 304's fields into what it stored).
      fields.set('vary', varyWithAcceptEncoding(fields.get('vary')));
      const etag = fields.get('etag');
      if (c.codedConditional && c.offered !== undefined && etag !== undefined && codingOfEtag(etag) === undefined) {
        fields.set('etag', codedEtag(etag, c.offered));
      }
      return fields.result();
    }
    if (!compressibleType(fields.get('content-type'))) return headers;
    fields.set('vary', varyWithAcceptEncoding(fields.get('vary')));
    const coding = c.offered;
    if (coding === undefined || status === 206 || fields.get('content-encoding') !== undefined) return fields.result();
    if (/(?:^|,)\s*no-transform\s*(?:,|$)/i.test(fields.get('cache-control') ?? '')) return fields.result();
    const length = fields.get('content-length');
    if (length !== undefined && Number(length) < threshold) return fields.result();
    fields.set('content-encoding', coding);
    const etag = fields.get('etag');
    if (etag !== undefined) fields.set('etag', codedEtag(identityEtag(etag), coding));
    c.chosen = coding;
    c.etag = etag !== undefined && !etag.startsWith('W/') ? etag : undefined;
    if (req.method === 'HEAD') {
      // RFC 9110 §9.3.2: as a GET would be, except for what only generating the body would tell
      // (the compressed length, unless remembered).
      const known = c.etag === undefined ? undefined : memo?.get(memoKey(coding, req.originalUrl ?? req.url ?? '', c.etag));
      if (known !== undefined) fields.set('content-length', String(known.length));
      else fields.remove('content-length');
      return fields.result();
    }
    fields.remove('content-length');
    c.pending = { status, reason: undefined, headers: undefined };
    return fields.result();
  }
}

/** Head filter of an identity response: `Vary: Accept-Encoding` on compressible ones and on 304 (§15.4.5). */
function varyForIdentity(res: Response, status: number, head: Head | undefined): Head | undefined {
  return status === 304 || (status >= 200 && status !== 204) ? withVary(res, status, head) : head;
}

/**
 * The head with Accept-Encoding added to Vary when the response is compressible (or a 304). The
 * common head, a flat list (roa's senders and resources), is scanned once and copied once.
 */
function withVary(res: Response, status: number, headers: Head | undefined): Head | undefined {
  if (Array.isArray(headers) && !Array.isArray(headers[0])) {
    let type: OutgoingHttpHeader | undefined;
    let varyAt = -1;
    for (let i = 0; i < headers.length; i += 2) {
      const name = headers[i] as string;
      if (isFieldName(name, 'content-type')) type = headers[i + 1];
      else if (isFieldName(name, 'vary')) varyAt = i;
    }
    if (status !== 304 && !compressibleType(type === undefined ? headerText(res.getHeader('content-type')) : String(type))) return headers;
    const out = headers.slice();
    if (varyAt === -1) out.push('Vary', varyWithAcceptEncoding(headerText(res.getHeader('vary'))));
    else out[varyAt + 1] = varyWithAcceptEncoding(String(out[varyAt + 1]));
    return out;
  }
  const fields = new Fields(res, headers);
  if (status !== 304 && !compressibleType(fields.get('content-type'))) return headers;
  fields.set('vary', varyWithAcceptEncoding(fields.get('vary')));
  return fields.result();
}

function headerText(v: OutgoingHttpHeader | undefined): string | undefined {
  return v === undefined ? undefined : Array.isArray(v) ? v.join(', ') : String(v);
}

// Responses carry few distinct Vary values: the joined one is remembered per value.
const varied = new BoundedMap<string, string>(64);

function varyWithAcceptEncoding(vary: string | undefined): string {
  if (vary === undefined || vary === '') return 'Accept-Encoding';
  let v = varied.get(vary);
  if (v === undefined) {
    v = appendVary(vary, 'Accept-Encoding');
    varied.set(vary, v);
  }
  return v;
}

/** What compressing a whole body needs besides the response. */
interface WholeOptions {
  memo: BoundedMap<string, Buffer> | undefined;
  memoMax: number;
  levels: CodingLevels;
  url: string;
}

function memoKey(coding: ResponseCoding, url: string, etag: string): string {
  return `${coding} ${etag} ${url}`;
}

/** A body given whole to end(): compressed (or taken from the memo), sent with its Content-Length. */
function sendWhole(res: Response, c: Coding, body: Buffer, o: WholeOptions, writeHead: WriteHead, end: End, done: (() => void) | undefined): void {
  const coding = c.chosen!;
  const key = c.etag === undefined ? undefined : memoKey(coding, o.url, c.etag);
  const send = (coded: Buffer): void => {
    const p = c.pending!;
    c.pending = undefined;
    const head = new Fields(res, p.headers);
    head.set('content-length', String(coded.length));
    const headers = head.result();
    if (p.reason === undefined) writeHead.call(res, p.status, headers);
    else writeHead.call(res, p.status, p.reason, headers);
    (end as (chunk: Buffer, cb?: () => void) => Response).call(res, coded, done);
  };
  const known = key === undefined ? undefined : o.memo?.get(key);
  if (known !== undefined) {
    send(known);
    return;
  }
  const remember = (coded: Buffer): void => {
    if (key !== undefined && o.memo !== undefined && coded.length <= o.memoMax) o.memo.set(key, coded);
  };
  // Small bodies in line (cheaper than a trip to the thread pool), larger ones off the event loop.
  if (body.length <= 32 * 1024) {
    const coded = compressSync(coding, body, o.levels);
    remember(coded);
    send(coded);
    return;
  }
  compress(coding, body, o.levels, (err, coded) => {
    if (err !== null) {
      res.destroy(err);
      return;
    }
    remember(coded);
    send(coded);
  });
}

/** Body written in pieces: sent chunked through a zlib stream, with the stream's back-pressure. */
function startStream(res: Response, c: Coding, levels: CodingLevels, writeHead: WriteHead, write: Write, end: End): Gzip | BrotliCompress {
  const p = c.pending!;
  c.pending = undefined;
  if (p.reason === undefined) writeHead.call(res, p.status, p.headers);
  else writeHead.call(res, p.status, p.reason, p.headers);
  const stream = c.chosen === 'br' ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: levels.br, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }) : createGzip({ level: levels.gzip });
  c.stream = stream;
  stream.on('data', (chunk: Buffer) => {
    if (!(write as (chunk: Buffer) => boolean).call(res, chunk)) {
      stream.pause();
      res.once('drain', () => stream.resume());
    }
  });
  stream.on('drain', () => res.emit('drain'));
  stream.on('end', () => (end as () => Response).call(res));
  stream.on('error', (err) => res.destroy(err));
  return stream;
}

function toBuffer(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
}

// mime-db's `compressible` flag (text, XML, JSON, +json/+xml types), which Express's compression
// reads too; an unknown type is left alone. Responses carry few distinct Content-Types: the answer
// is remembered per value.
const compressibleMemo = new BoundedMap<string, boolean>(256);

function compressibleType(type: string | undefined): boolean {
  if (type === undefined) return false;
  let yes = compressibleMemo.get(type);
  if (yes === undefined) {
    yes = isCompressible(mediaTypeOf(type)) === true;
    compressibleMemo.set(type, yes);
  }
  return yes;
}

/**
 * The head's fields as writeHead was given them (a flat [name, value, …] list, an object, or none,
 * then the response's own header map), read and changed case-insensitively in that same shape.
 */
class Fields {
  readonly #res: Response;
  #list: OutgoingHttpHeader[] | undefined;
  #object: OutgoingHttpHeaders | undefined;
  readonly #given: Head | undefined;

  constructor(res: Response, given: Head | undefined) {
    this.#res = res;
    this.#given = given;
  }

  get(name: string): string | undefined {
    const g = this.#list ?? this.#object ?? this.#given;
    let v: OutgoingHttpHeader | undefined;
    if (g === undefined) v = this.#res.getHeader(name);
    else if (Array.isArray(g)) {
      const i = fieldIndex(g, name);
      v = i === -1 ? undefined : g[i + 1];
      if (i === -1 && Array.isArray(g[0])) v = undefined;
    } else {
      const k = Object.keys(g).find((key) => key.toLowerCase() === name);
      v = k === undefined ? this.#res.getHeader(name) : g[k];
    }
    return v === undefined ? undefined : Array.isArray(v) ? v.join(', ') : String(v);
  }

  set(name: string, value: string): void {
    const g = this.#copy();
    if (g === undefined) this.#res.setHeader(name, value);
    else if (Array.isArray(g)) {
      const i = fieldIndex(g, name);
      if (i === -1) g.push(name, value);
      else g[i + 1] = value;
    } else {
      const k = Object.keys(g).find((key) => key.toLowerCase() === name);
      g[k ?? name] = value;
    }
  }

  remove(name: string): void {
    const g = this.#copy();
    if (g === undefined) this.#res.removeHeader(name);
    else if (Array.isArray(g)) {
      const i = fieldIndex(g, name);
      if (i !== -1) g.splice(i, 2);
    } else {
      for (const k of Object.keys(g)) if (k.toLowerCase() === name) delete g[k];
    }
    // A field set earlier by setHeader would still be merged into the head.
    if (this.#res.hasHeader(name)) this.#res.removeHeader(name);
  }

  /** What writeHead is to be given: the changed copy, or what it was given. */
  result(): Head | undefined {
    return this.#list ?? this.#object ?? this.#given;
  }

  /** A copy of the given head to change (the caller's array or object may be shared, e.g. a stored head). */
  #copy(): OutgoingHttpHeader[] | OutgoingHttpHeaders | undefined {
    if (this.#list !== undefined || this.#object !== undefined) return this.#list ?? this.#object;
    const g = this.#given;
    if (g === undefined) return undefined;
    if (Array.isArray(g)) this.#list = Array.isArray(g[0]) ? (g as unknown as string[][]).flat() : [...g];
    else this.#object = { ...g };
    return this.#list ?? this.#object;
  }
}

