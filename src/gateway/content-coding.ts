/**
 * @module gateway/content-coding
 * One stored copy per variant whatever the client's Accept-Encoding, as Varnish's
 * `http_gzip_support`: fills ask the origin for gzip, `Vary: Accept-Encoding` does not split the
 * cache, and a client that does not take gzip gets the stored copy decoded (identity).
 */
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { brotliDecompressSync, createBrotliDecompress, createGunzip, createInflate, gunzipSync, inflateSync } from 'node:zlib';
import Negotiator from 'negotiator';
import { codingOfEtag, identityEtag } from '../http/coded-etag.js';
import { contentCodingOf, type ContentCoding } from '../http/content-codings.js';
import { BoundedMap } from '../util/bounded-map.js';
import type { StoredResponse } from './cache-store.js';
import { fieldMap, type Field } from './headers.js';
import { headerMemo } from './header-memo.js';
import { isFieldName } from '../http/field-name.js';

/** What a request's Accept-Encoding is normalised to: the stored gzip copy serves it, or its decoding does. */
export type ClientCoding = 'gzip' | 'identity';

// Set on a request whose Accept-Encoding was normalised; a request without it is served as before.
const CLIENT = Symbol('roa.clientCoding');
type Marked = IncomingMessage & { [CLIENT]?: ClientCoding };

const codingFor = headerMemo((ae): ClientCoding => (new Negotiator({ headers: { 'accept-encoding': ae } }).encodings(['gzip']).length > 0 ? 'gzip' : 'identity'), 1000);

/**
 * Normalises the request's Accept-Encoding to `gzip` (it accepts gzip, RFC 9110 §12.5.3) or
 * `identity`, and marks the request so stored responses are served in that form. A HEAD or an
 * uncached request forwarded as it is still carries the client's own field (rawHeaders).
 */
export function normaliseAcceptEncoding(req: IncomingMessage): void {
  const ae = req.headers['accept-encoding'];
  const c = ae === undefined ? 'identity' : codingFor(ae);
  req.headers['accept-encoding'] = c;
  (req as Marked)[CLIENT] = c;
}

/**
 * A forwarded HEAD's fields with Accept-Encoding as it was normalised, so that its answer announces
 * the coding, length and tag a GET by the same client gets from the stored copy (a br-only client
 * would otherwise be told br, then served identity). Fields of an unmarked request are returned as
 * they are.
 */
export function withNormalisedCoding(req: IncomingMessage, headers: string[]): string[] {
  const c = (req as Marked)[CLIENT];
  return c === undefined ? headers : withAcceptEncoding(headers, c);
}

/** The fill's request fields with Accept-Encoding replaced by `gzip`: the one form stored. */
export function askForGzip(headers: string[]): string[] {
  return withAcceptEncoding(headers, 'gzip');
}

/** A flat field list with its Accept-Encoding replaced by `coding`. */
function withAcceptEncoding(headers: string[], coding: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2) if (!isFieldName(headers[i]!, 'accept-encoding')) out.push(headers[i]!, headers[i + 1]!);
  out.push('Accept-Encoding', coding);
  return out;
}

/**
 * The Vary names a stored response is selected by: Accept-Encoding left out when the gateway can
 * serve every client from the stored copy (identity, or a coding it decodes).
 */
export function keyedVaryNames(names: string[] | undefined, fields: readonly Field[]): string[] | undefined {
  if (names === undefined || !names.includes('accept-encoding')) return names;
  const coding = fieldMap(fields)['content-encoding'];
  if (coding !== undefined && contentCodingOf(coding) === undefined) return names;
  const rest = names.filter((n) => n !== 'accept-encoding');
  return rest.length === 0 ? undefined : rest;
}


/** The coding of a stored or relayed response that this client cannot take as it is, or undefined. */
function toDecode(req: IncomingMessage, fields: readonly Field[]): ContentCoding | undefined {
  const client = (req as Marked)[CLIENT];
  if (client === undefined) return undefined;
  let coding: string | undefined;
  for (const f of fields) if (f.lower === 'content-encoding') coding = f.value;
  if (coding === undefined) return undefined;
  const c = contentCodingOf(coding);
  return c === 'gzip' && client === 'gzip' ? undefined : c;
}

/**
 * Fields of the decoded form: no Content-Encoding or Content-Length, and the ETag of the identity
 * form. roa's origin marks coded tags with a suffix (http/coded-etag), which comes off; any other
 * strong tag is weakened, as Varnish does, since the decoded bytes differ (RFC 9110 §8.8.3).
 */
function decodedFields(fields: readonly Field[], length: number | undefined): Field[] {
  const out: Field[] = [];
  for (const f of fields) {
    if (f.lower === 'content-encoding' || f.lower === 'content-length') continue;
    if (f.lower === 'etag' && !f.value.startsWith('W/')) {
      out.push({ ...f, value: codingOfEtag(f.value) !== undefined ? identityEtag(f.value) : `W/${f.value}` });
    } else out.push(f);
  }
  if (length !== undefined) out.push({ name: 'Content-Length', lower: 'content-length', value: String(length) });
  return out;
}

/** Decoded forms of stored responses (each at most DECODED_MEMO_MAX bytes), bounded in number. */
const decodedForms = new BoundedMap<StoredResponse, StoredResponse>(512);
const DECODED_MEMO_MAX = 64 * 1024;

/**
 * The stored response as this client takes it: `v` itself, or its decoded form (the body, the
 * fields and the precomputed head of a hit, the ETag), remembered for small bodies. A body that
 * does not decode is served as stored: it was the origin's, and a client asking identity may
 * still read it (RFC 9110 §12.5.3 makes identity acceptable, not mandatory).
 */
export function clientForm(req: IncomingMessage, v: StoredResponse): StoredResponse {
  const coding = toDecode(req, v.fields);
  if (coding === undefined || v.status === 304) return v;
  const known = decodedForms.get(v);
  if (known !== undefined) return known;
  let body: Buffer;
  try {
    const max = { maxOutputLength: 256 * 1024 * 1024 };
    body = coding === 'gzip' ? gunzipSync(v.body, max) : coding === 'br' ? brotliDecompressSync(v.body, max) : inflateSync(v.body, max);
  } catch {
    return v;
  }
  const fields = decodedFields(v.fields, body.length);
  const map = fieldMap(fields);
  // The head keeps this hop's last eight entries (Via, X-Cache, Cache-Status, Age) in place: writeHit fills them in.
  const head = rewriteHead(v.head, map);
  const form: StoredResponse = { ...v, fields, head, body, etag: map.etag };
  if (body.length <= DECODED_MEMO_MAX) decodedForms.set(v, form);
  return form;
}

function rewriteHead(head: readonly string[], map: Record<string, string>): string[] {
  const out: string[] = [];
  const hop = head.length - 8;
  for (let i = 0; i < hop; i += 2) {
    const lower = head[i]!.toLowerCase();
    if (lower === 'content-encoding' || lower === 'content-length') continue;
    out.push(head[i]!, lower === 'etag' ? map.etag! : head[i + 1]!);
  }
  out.push('Content-Length', map['content-length']!);
  for (let i = hop; i < head.length; i++) out.push(head[i]!);
  return out;
}

/** A relayed response decoded on its way to a client that cannot take its coding (a fill's client). */
export interface RelayDecoding {
  fields: Field[];
  stream: Transform;
}

/** Whether a stored response has a content coding (then a Range is answered with the whole response). */
export function isCoded(v: StoredResponse): boolean {
  return v.fields.some((f) => f.lower === 'content-encoding' && f.value.trim().toLowerCase() !== 'identity');
}

export function relayDecoding(req: IncomingMessage, status: number, fields: readonly Field[]): RelayDecoding | undefined {
  if (status === 204 || status === 304) return undefined;
  const coding = toDecode(req, fields);
  if (coding === undefined) return undefined;
  const stream = coding === 'gzip' ? createGunzip() : coding === 'br' ? createBrotliDecompress() : createInflate();
  return { fields: decodedFields(fields, undefined), stream };
}
