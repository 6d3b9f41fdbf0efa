/**
 * @module http/response
 * The response object handlers receive: node's ServerResponse plus Express 4's senders, all public
 * node API; `FastResponse` adds the `outHeaders` fast path, which reads a private field.
 */
import { IncomingMessage, ServerResponse, STATUS_CODES, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import { Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';
import encodeUrl from 'encodeurl';
import appendVary from 'vary';
import { HttpError } from '../errors/http-error.js';
import { negotiate } from './accepts.js';
import { fieldIndex } from './field-name.js';
import { contentTypeFor } from './mime.js';
import type { Request } from './request.js';
import { BoundedMap } from '../util/bounded-map.js';

export type HeaderValue = string | number | readonly string[];

/** What writeHead is given for the fields: a flat [name, value, …] list, pairs, an object, or nothing. */
export type Head = OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined;

/**
 * Rewrites a response's head just before it is written (compression's `Vary: Accept-Encoding`).
 * Returns the head to write; a given list or object is not changed in place (it may be shared),
 * and one it returns instead is new: finalHead adds the late fields to it without copying it again.
 */
export type HeadFilter = (res: Response, status: number, head: Head) => Head;

export class Response extends ServerResponse<Request> {
  /** Per-response values for templates and later handlers (Express's `res.locals`). */
  locals: Record<string, unknown> = {};

  /**
   * Fields added to the head when it is written (`setLateHeader`). Declared here, like `headFilter`,
   * so that middleware filling them in changes no response's shape.
   */
  lateFields: string[] | undefined = undefined;

  /** The filter middleware installed for this response's head (`addHeadFilter`). */
  headFilter: HeadFilter | undefined = undefined;

  /**
   * Adds a field when the head is written, unless the head has one of that name by then. Unlike
   * setHeader() it keeps node's one-array path for a handler's `writeHead(status, [name, value, …])`:
   * one field set beforehand makes node take every field of that list through its header map, one
   * setHeader() each (the request id, set on every request, cost more than the rest of it).
   */
  setLateHeader(name: string, value: string): void {
    (this.lateFields ??= []).push(name, value);
  }

  /** Runs `filter` on the head when it is written, after the filters added before it. */
  addHeadFilter(filter: HeadFilter): void {
    const first = this.headFilter;
    this.headFilter = first === undefined ? filter : (res, status, head) => filter(res, status, first(res, status, head));
  }

  override writeHead(statusCode: number, reasonOrHead?: string | Head, head?: Head): this {
    if (this.lateFields === undefined && this.headFilter === undefined) return writeHeadOf(this, statusCode, reasonOrHead, head);
    if (typeof reasonOrHead === 'string') return writeHeadOf(this, statusCode, reasonOrHead, finalHead(this, statusCode, head));
    return writeHeadOf(this, statusCode, finalHead(this, statusCode, reasonOrHead), undefined);
  }

  /** Sets the status code; chainable. */
  status(code: number): this {
    this.statusCode = code;
    return this;
  }

  /** Sets one header, or several from an object; chainable. `Content-Type` short names resolve (`json`). */
  set(field: string | Record<string, HeaderValue>, value?: HeaderValue): this {
    if (typeof field === 'object') {
      for (const name of Object.keys(field)) this.set(name, field[name]);
      return this;
    }
    if (value === undefined) return this;
    if (field.length === 12 && field.toLowerCase() === 'content-type' && typeof value === 'string') {
      this.setHeader('Content-Type', contentTypeFor(value));
      return this;
    }
    this.setHeader(field, typeof value === 'number' ? String(value) : value);
    return this;
  }

  /** Alias of `set`. */
  header(field: string | Record<string, HeaderValue>, value?: HeaderValue): this {
    return this.set(field, value);
  }

  /** A response header already set. */
  get(field: string): string | number | string[] | undefined {
    return this.getHeader(field);
  }

  /** Appends to a header (adds a second value rather than replacing). */
  append(field: string, value: string | string[]): this {
    const prev = this.getHeader(field);
    if (prev === undefined) return this.set(field, value);
    const list = Array.isArray(prev) ? prev : [String(prev)];
    return this.set(field, list.concat(value));
  }

  /** Sets Content-Type from a short name (`json`, `html`, `.xml`) or a media type. */
  type(type: string): this {
    this.setHeader('Content-Type', contentTypeFor(type));
    return this;
  }

  /** Adds fields to `Vary`, each once, case-insensitively (the `vary` package, as Express does). */
  vary(field: string | readonly string[]): this {
    appendVary(this, field as string | string[]);
    return this;
  }

  /**
   * Sets `Location`, percent-encoding what a URL may not hold but leaving existing escapes alone
   * (`encodeurl`, as Express does); a lone surrogate becomes U+FFFD instead of throwing.
   */
  location(url: string): this {
    this.setHeader('Location', encodeUrl(url));
    return this;
  }

  /**
   * Sends a body: a string as text/html, a Buffer as application/octet-stream, anything else as
   * JSON; sets Content-Length, and leaves the body out for HEAD, 204 and 304.
   */
  send(body?: unknown): this {
    let chunk: string | Buffer;
    if (typeof body === 'string') {
      if (this.noHeadersSet()) return this.sendFast('text/html; charset=utf-8', body);
      chunk = body;
      if (!this.hasHeader('Content-Type')) this.setHeader('Content-Type', 'text/html; charset=utf-8');
    } else if (body === undefined || body === null) {
      chunk = '';
    } else if (Buffer.isBuffer(body)) {
      chunk = body;
      if (!this.hasHeader('Content-Type')) this.setHeader('Content-Type', 'application/octet-stream');
    } else if (body instanceof Uint8Array) {
      chunk = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      if (!this.hasHeader('Content-Type')) this.setHeader('Content-Type', 'application/octet-stream');
    } else {
      return this.json(body);
    }
    return this.end_(chunk);
  }

  /** Sends `value` as JSON (`application/json; charset=utf-8`). */
  json(value: unknown): this {
    const text = JSON.stringify(value);
    if (this.noHeadersSet()) return this.sendFast('application/json; charset=utf-8', text === undefined ? '' : text);
    if (!this.hasHeader('Content-Type')) this.setHeader('Content-Type', 'application/json; charset=utf-8');
    return this.end_(text === undefined ? '' : text);
  }

  /** Whether no header was set yet; answered only by FastResponse (public API cannot say it cheaply). */
  protected noHeadersSet(): boolean {
    return false;
  }

  /**
   * The common case — no header set by anyone, a string body — in one writeHead: node then
   * skips its header map altogether.
   */
  private sendFast(type: string, text: string): this {
    const code = this.statusCode;
    if (code === 204 || code === 304) return this.end_(text);
    this.writeHead(code, ['Content-Type', type, 'Content-Length', String(Buffer.byteLength(text))]);
    if (this.req.method === 'HEAD') this.end();
    else this.end(text);
    return this;
  }

  /** Sets the status and sends its reason phrase as text. */
  sendStatus(code: number): this {
    this.statusCode = code;
    this.setHeader('Content-Type', 'text/plain; charset=utf-8');
    return this.end_(STATUS_CODES[code] ?? String(code));
  }

  /**
   * Runs the handler for the media type the client prefers (Express's `res.format`), with
   * `Vary: Accept`. No acceptable type and no `default` handler: a 406 goes to the error chain.
   */
  format(handlers: Record<string, () => void>): this {
    const req = this.req;
    const keys = Object.keys(handlers).filter((k) => k !== 'default');
    const offers = keys.map((k) => (k.includes('/') ? k : contentTypeFor(k).split(';')[0]!));
    this.vary('Accept');
    const chosen = negotiate(req.headers.accept, offers);
    if (chosen !== undefined) {
      const key = keys[offers.indexOf(chosen)]!;
      if (!this.hasHeader('Content-Type')) this.setHeader('Content-Type', contentTypeFor(chosen));
      handlers[key]!();
    } else if (handlers.default) {
      handlers.default();
    } else {
      const err = new HttpError(406, 'Not Acceptable', {
        extensions: { types: offers },
      });
      if (req.next) req.next(err);
      else throw err;
    }
    return this;
  }

  /** Writes Content-Length and the body, honouring HEAD and bodiless statuses. */
  private end_(chunk: string | Buffer): this {
    const code = this.statusCode;
    if (code === 204 || code === 304) {
      this.removeHeader('Content-Type');
      this.removeHeader('Content-Length');
      this.removeHeader('Transfer-Encoding');
      this.end();
      return this;
    }
    this.setHeader('Content-Length', typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length);
    if (this.req.method === 'HEAD') this.end();
    else this.end(chunk);
    return this;
  }
}

const nodeWriteHead = ServerResponse.prototype.writeHead as (this: ServerResponse, status: number, reason?: string | Head, head?: Head) => ServerResponse;

function writeHeadOf<R extends ServerResponse>(res: R, status: number, reasonOrHead: string | Head, head: Head): R {
  if (head !== undefined) nodeWriteHead.call(res, status, reasonOrHead, head);
  else if (reasonOrHead !== undefined) nodeWriteHead.call(res, status, reasonOrHead);
  else nodeWriteHead.call(res, status);
  return res;
}

/**
 * The head to write: the response's head filter applied, then its late fields added (each once,
 * and only where neither the head nor the header map has that name). Consumes both, so a second
 * writeHead (node refuses it anyway) adds nothing twice. Used by the HTTP/2 response too.
 */
export function finalHead(res: Response, status: number, head: Head): Head {
  const filter = res.headFilter;
  const late = res.lateFields;
  res.headFilter = undefined;
  res.lateFields = undefined;
  const given = head;
  if (filter !== undefined) head = filter(res, status, head);
  if (late === undefined) return head;
  if (head === undefined) {
    const out: string[] = [];
    for (let i = 0; i < late.length; i += 2) if (!res.hasHeader(lowerName(late[i]!))) out.push(late[i]!, late[i + 1]!);
    return out;
  }
  if (Array.isArray(head) && !Array.isArray(head[0])) {
    const list = head as OutgoingHttpHeader[];
    // A list the filter made is this response's own (HeadFilter): the late fields join it.
    let out: OutgoingHttpHeader[] | undefined = head !== given ? list : undefined;
    // Only the fields the head came with count, not late ones added here.
    const end = list.length;
    for (let i = 0; i < late.length; i += 2) {
      const name = late[i]!;
      const lower = lowerName(name);
      if (fieldIndex(list, lower, end) !== -1 || res.hasHeader(lower)) continue;
      out ??= list.slice();
      out.push(name, late[i + 1]!);
    }
    return out ?? head;
  }
  // Pairs or an object: rare here; the late fields go to the header map, which node merges with them.
  for (let i = 0; i < late.length; i += 2) {
    const name = late[i]!;
    if (!headHas(head, name) && !res.hasHeader(name)) res.setHeader(name, late[i + 1]!);
  }
  return head;
}

// Late field names come from code, not from clients, so they are few: each one's lower case is
// kept (hasHeader lower-cases its argument, which allocates unless it already is).
const lowerNames = new BoundedMap<string, string>(64);

function lowerName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    lowerNames.set(name, lower);
  }
  return lower;
}

function headHas(head: OutgoingHttpHeaders | OutgoingHttpHeader[], name: string): boolean {
  const lower = name.toLowerCase();
  if (Array.isArray(head)) return (head as unknown as OutgoingHttpHeader[][]).some((pair) => String(pair[0]).toLowerCase() === lower);
  return Object.keys(head).some((k) => k.toLowerCase() === lower);
}

/**
 * node keeps set headers under a private symbol, null until the first setHeader(). Found on a probe
 * response by its description, and checked to behave so (null, then an object once a header is
 * set); when it does not, FastResponse is not used (http/fast-paths).
 */
export function findOutHeaders(probe: ServerResponse = new ServerResponse(new IncomingMessage(null as unknown as Socket))): symbol | undefined {
  const symbol = Object.getOwnPropertySymbols(probe).find((s) => s.description === 'kOutHeaders');
  if (symbol === undefined) return undefined;
  const fields = probe as unknown as Record<symbol, unknown>;
  if (fields[symbol] !== null) return undefined;
  probe.setHeader('X-Probe', '1');
  return typeof fields[symbol] === 'object' && fields[symbol] !== null ? symbol : undefined;
}

const OUT_HEADERS = findOutHeaders();
export const outHeadersDetected = OUT_HEADERS !== undefined;

/** The `outHeaders` fast path: a response with no header set is sent by one raw-array writeHead. */
export class FastResponse extends Response {
  protected override noHeadersSet(): boolean {
    return (this as unknown as Record<symbol, unknown>)[OUT_HEADERS!] === null;
  }
}

/**
 * What an HTTP/2 compatibility response becomes: http/http2-messages registers its Http2Response
 * when it loads (that class takes its conveniences from Response, so this module cannot import it).
 */
type Http2ResponseClass = (new (...args: never[]) => Http2ServerResponse) & { initFields(res: Response): void };
let http2ResponseClass: Http2ResponseClass | undefined;

/** Called once by http/http2-messages. */
export function registerHttp2Response(cls: Http2ResponseClass): void {
  http2ResponseClass = cls;
}

/**
 * Gives a plain ServerResponse the prototype of `as` (for `http.createServer(app)`); node:http2's
 * compatibility response (`http2.createSecureServer(…, app)`) gets http/http2-messages'
 * Http2Response, with the same senders; it is typed as a Response for the handlers.
 */
export function adoptResponse(res: ServerResponse | Http2ServerResponse, as: typeof Response = Response): Response {
  if (res instanceof Response) return res;
  if (res instanceof Http2ServerResponse) {
    const h2 = http2ResponseClass;
    if (h2 === undefined) throw new Error('roa: HTTP/2 responses need http/http2-messages loaded (createApp loads it)');
    if (res instanceof h2) return res as unknown as Response;
    Object.setPrototypeOf(res, h2.prototype);
    h2.initFields(res as unknown as Response);
    return res as unknown as Response;
  }
  Object.setPrototypeOf(res, as.prototype);
  (res as Response).locals = {};
  return res as Response;
}
