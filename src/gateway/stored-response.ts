/**
 * @module gateway/stored-response
 * Building, freshening (RFC 9111 §4.3.4) and serving stored responses, including 304 and single ranges.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { initialAge, responsePolicy, type ResponsePolicy } from './cache-rules.js';
import type { StoredResponse } from './cache-store.js';
import { responseBytes } from './entry-size.js';
import { writeHead } from './exchange.js';
import { addVia, fieldMap, flatten, passesToClient, PROXY_SPECIFIC, type Field } from './headers.js';
import { parseEtagList, weakMatch } from '../http/etag-list.js';
import { parseHttpDate } from '../http/http-date.js';
import { clientForm, isCoded } from './content-coding.js';
import { variantKey } from './variant-set.js';

/** RFC 9111 §4.3.4: fields a 304 must not overwrite, since the stored body is kept. */
const NOT_UPDATED = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'content-range', 'age']);

const NO_BODY_STATUS = new Set([204, 304]);

/**
 * Fields never stored: those specific to the proxy (RFC 9111 §3.1; hop-by-hop and Connection-listed
 * ones never get this far, see headers.collectFields) and roa's per-request diagnostics, which
 * describe the one request that reached the origin, not the response replayed to others. `Date`
 * is kept: it dates the stored response, and Age counts from it (RFC 9111 §4.2.3).
 */
const NOT_STORED = new Set([...PROXY_SPECIFIC, 'x-roa-trace', 'x-request-id']);

export interface BuildInput {
  key: string;
  status: number;
  statusMessage: string;
  fields: Field[];
  body: Buffer;
  policy: ResponsePolicy;
  /** Used for the Age calculation: the response's own Date/Age (for a 304, the 304's). */
  ageHeaders: Record<string, string>;
  requestTime: number;
  responseTime: number;
  vary: { names: string[] | undefined; values: (string | undefined)[] };
}

/** Vary field names of a response (lower-cased, deduplicated, sorted: their order carries no meaning), or undefined. */
export function varyNames(vary: string | undefined): string[] | undefined {
  if (vary === undefined) return undefined;
  const names = [...new Set(vary.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== ''))].sort();
  return names.length === 0 ? undefined : names;
}

/** The presented request's values for the Vary names (RFC 9111 §4.1). */
export function varyValues(names: string[] | undefined, headers: IncomingHttpHeaders): (string | undefined)[] {
  if (names === undefined) return [];
  return names.map((n) => headerValue(headers[n]));
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

/**
 * The body chunks of a response as one buffer of its own. `Buffer.concat` would take a small
 * result from node's shared 8 KiB pool, and a stored slice keeps its whole pool slab alive.
 */
export function concatBody(chunks: readonly Buffer[], size: number): Buffer {
  const body = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const c of chunks) at += c.copy(body, at);
  return body;
}

/** `body` itself when it owns its memory, else a copy: a stored slice would pin its parent buffer. */
function ownBody(body: Buffer): Buffer {
  return body.byteOffset === 0 && body.buffer.byteLength === body.length ? body : concatBody([body], body.length);
}

/** Assembles a StoredResponse, precomputing the header array a hit writes. */
export function buildStored(input: BuildInput): StoredResponse {
  const strip = new Set(input.policy.strip);
  const fields = input.fields.filter((f) => !NOT_STORED.has(f.lower) && !strip.has(f.lower) && f.lower !== 'age');
  if (!NO_BODY_STATUS.has(input.status)) {
    const cl = fields.find((f) => f.lower === 'content-length');
    if (cl === undefined) fields.push({ name: 'Content-Length', lower: 'content-length', value: String(input.body.length) });
    else cl.value = String(input.body.length);
  }
  const map = fieldMap(fields);
  const head = [
    ...flatten(fields.filter(passesToClient)),
    'Via', addVia(map.via, 'roa'), 'X-Cache', 'HIT', 'Cache-Status', 'roa; hit', 'Age', '0',
  ];
  const tags = `${map.xkey ?? ''} ${map['surrogate-key'] ?? ''}`.split(/[\s,]+/).filter((t) => t !== '');
  const stored: StoredResponse = {
    key: input.key,
    status: input.status,
    statusMessage: input.statusMessage,
    fields,
    head,
    body: ownBody(input.body),
    responseTime: input.responseTime,
    initialAge: initialAge(input.ageHeaders, input.requestTime, input.responseTime),
    lifetime: input.policy.lifetime,
    swr: input.policy.swr,
    sie: input.policy.sie,
    noCache: input.policy.noCache,
    mustRevalidate: input.policy.mustRevalidate,
    varyNames: input.vary.names,
    varyValues: input.vary.values,
    variantKey: variantKey(input.vary.names, input.vary.values),
    etag: map.etag,
    lastModified: map['last-modified'],
    tags,
    size: 0,
  };
  stored.size = responseBytes(stored);
  return stored;
}

/**
 * RFC 9111 §4.3.4: a 304 replaces the stored header fields it carries (not the body's framing
 * ones) and adds the ones it introduces; freshness is recomputed from the merged fields.
 */
export function freshen(v: StoredResponse, fields304: readonly Field[], requestTime: number, responseTime: number): StoredResponse {
  const update = fieldMap(fields304.filter((f) => !NOT_UPDATED.has(f.lower) && !NOT_STORED.has(f.lower)));
  const merged: Field[] = v.fields.map((f) => (f.lower in update ? { ...f, value: update[f.lower]! } : f));
  const present = new Set(v.fields.map((f) => f.lower));
  for (const f of fields304) {
    if (!present.has(f.lower) && f.lower in update) {
      present.add(f.lower);
      merged.push({ name: f.name, lower: f.lower, value: update[f.lower]! });
    }
  }
  const map = fieldMap(merged);
  const own = fieldMap(fields304);
  const policy = responsePolicy('GET', v.status, map, NO_DIRECTIVES, responseTime);
  return buildStored({
    key: v.key,
    status: v.status,
    statusMessage: v.statusMessage,
    fields: merged,
    body: v.body,
    policy,
    ageHeaders: { ...(own.date !== undefined ? { date: own.date } : {}), ...(own.age !== undefined ? { age: own.age } : {}) },
    requestTime,
    responseTime,
    vary: { names: v.varyNames, values: v.varyValues },
  });
}

const NO_DIRECTIVES = {
  noCache: false, noStore: false, maxAge: undefined, minFresh: undefined, maxStale: undefined,
  onlyIfCached: false, staleIfError: undefined,
};

/** The hit path: writes the precomputed head (Age and Cache-Status slots filled in) and body. */
export function writeHit(res: ServerResponse, v: StoredResponse, age: number, headOnly: boolean, cacheStatus: string): void {
  const head = v.head;
  const n = head.length;
  head[n - 1] = String(Math.floor(age));
  head[n - 3] = cacheStatus;
  writeHead(res, v.status, v.statusMessage, head);
  if (headOnly) res.end();
  else res.end(v.body);
}

/**
 * Serves a stored response to a request that may be conditional (RFC 9110 §13.1.2, §13.1.3:
 * If-None-Match wins over If-Modified-Since) or ask for a single byte range (RFC 9110 §14.2).
 */
export function serveStored(req: IncomingMessage, res: ServerResponse, stored: StoredResponse, age: number, cacheStatus: string): void {
  const h = req.headers;
  // The form this client takes (gateway/content-coding): its ETag is what conditionals compare.
  const v = clientForm(req, stored);
  const headOnly = req.method === 'HEAD';
  if (v.status === 200 && notModified(h, v)) {
    const head = headWithoutLength(v, age, cacheStatus);
    writeHead(res, 304, undefined, head);
    res.end();
    return;
  }
  const range = h.range;
  // No ranges of a coded copy: the client gets the whole response (RFC 9110 §14.2 lets a server ignore Range).
  if (range !== undefined && v.status === 200 && req.method === 'GET' && h['if-range'] === undefined && !isCoded(v)) {
    const r = parseRange(range, v.body.length);
    if (r !== undefined) {
      const head = headWithoutLength(v, age, cacheStatus);
      head.push('Content-Range', `bytes ${r[0]}-${r[1]}/${v.body.length}`, 'Content-Length', String(r[1] - r[0] + 1));
      writeHead(res, 206, undefined, head);
      res.end(v.body.subarray(r[0], r[1] + 1));
      return;
    }
  }
  writeHit(res, v, age, headOnly, cacheStatus);
}

/** A hit's header list for a 304 or a 206: the stored fields but Content-Length, then this hop's (Age, Cache-Status set). */
function headWithoutLength(v: StoredResponse, age: number, cacheStatus: string): string[] {
  const head = [...flatten(v.fields.filter((f) => f.lower !== 'content-length' && passesToClient(f))), ...v.head.slice(-8)];
  head[head.length - 1] = String(Math.floor(age));
  head[head.length - 3] = cacheStatus;
  return head;
}

function notModified(h: IncomingHttpHeaders, v: StoredResponse): boolean {
  const inm = h['if-none-match'];
  if (inm !== undefined) {
    if (v.etag === undefined) return false;
    const tags = parseEtagList(inm)!;
    return tags === '*' || weakMatch(tags, v.etag);
  }
  const ims = parseHttpDate(h['if-modified-since']);
  if (ims === undefined || v.lastModified === undefined) return false;
  const lm = parseHttpDate(v.lastModified);
  return lm !== undefined && lm <= ims;
}

/** One satisfiable `bytes=` range as [first, last], else undefined (then the full response is sent). */
function parseRange(value: string, length: number): [number, number] | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(value.trim());
  if (!m || (m[1] === '' && m[2] === '') || length === 0) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return undefined;
    return [Math.max(0, length - suffix), length - 1];
  }
  const first = Number(m[1]);
  const last = m[2] === '' ? length - 1 : Math.min(Number(m[2]), length - 1);
  if (first >= length || last < first) return undefined;
  return [first, last];
}
