/**
 * @module http/request
 * The request object handlers receive: node's IncomingMessage plus Express 4's conveniences.
 * The server is created with this class (`http.createServer({ IncomingMessage: Request })`), so no
 * prototype is swapped per request; `adoptRequest` covers apps mounted on a plain node server.
 */
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import typeis from 'type-is';
import { parseContentType } from './content-type.js';
import { parseQuery, type ParsedQuery } from './query.js';
import { clientAddress, forwardedAddresses, TRUST_FN_SETTING, type TrustFn } from './trust-proxy.js';
import type { Response } from './response.js';

export type NextFunction = (err?: unknown) => void;

/**
 * Where http/body takes a body straight from node's HTTP parser (see `Request.push`): each chunk, then
 * null at the end, or BODY_ABORTED when the request is destroyed first.
 */
export const BODY_SINK = Symbol('roa.bodySink');
export const BODY_ABORTED = Symbol('roa.bodyAborted');
export type BodySink = (chunk: Buffer | null | typeof BODY_ABORTED) => void;

/** Set when `_dump` found nothing to drain and nobody to tell: the stream's ending waits for a listener. */
const END_DEFERRED = Symbol('roa.endDeferred');

/**
 * The response that owes `100 Continue` once the body is read (RFC 9110 §10.1.1): set by the
 * server's `checkContinue` listener, so a request refused on its headers alone gets only its final
 * status, and the client never sends a body nobody wants.
 */
export const AWAITING_CONTINUE = Symbol('roa.awaitingContinue');

/** How many unread body bytes may be drained before the connection is cut (http/unread-body). */
export const DRAIN_BOUND = Symbol('roa.drainBound');
/** Set while an unread body is drained: the bytes still allowed (counted in `push`). */
const DRAIN_LEFT = Symbol('roa.drainLeft');

export class Request extends IncomingMessage {
  /** Route parameters of the layer being run (named, and positional `0`, `1`, ...). */
  declare params: Record<string, string | undefined>;
  /** Parsed body, set by `json()` / `urlencoded()`; undefined until a parser ran. */
  declare body: unknown;
  /** Raw body bytes once a body reader consumed the stream (see http/body). */
  declare rawBody: Buffer | undefined;
  /** The mount path of the router running the current layer (`/api` under `app.use('/api', r)`). */
  declare baseUrl: string;
  /** The request target as received, never rewritten by mounting. */
  declare originalUrl: string;
  /** The method before `methodOverride()` changed it. */
  declare originalMethod: string | undefined;
  /** The response paired with this request. */
  declare res: Response | undefined;
  /** The `next` of the layer being run (used by `res.format` to reach the error chain). */
  declare next: NextFunction | undefined;
  /** Per-request state for middleware (roa puts the authenticated caller here). */
  declare locals: Record<string, unknown>;
  /** The route whose handlers are running (Express's `req.route`). */
  declare route: unknown;
  /** The app dispatching this request (Express's `req.app`): its settings, e.g. `env`, apply. */
  declare app: { get(setting: string): unknown } | undefined;
  declare private _query: ParsedQuery | undefined;
  declare private _queryFor: string | undefined;
  declare [BODY_SINK]: BodySink | undefined;
  declare [END_DEFERRED]: boolean;
  declare [AWAITING_CONTINUE]: ServerResponse | undefined;
  declare [DRAIN_BOUND]: number | undefined;
  declare [DRAIN_LEFT]: number | undefined;
  declare _dumped: boolean;

  constructor(socket: Socket) {
    super(socket);
    initRequest(this);
  }

  /**
   * node's HTTP parser hands every body chunk to `push`, then null at the end. With a sink installed
   * (http/body, when nothing is buffered or listening yet) the chunks go to it directly instead of
   * through the stream's buffer, flowing mode, nextTicks and 'data'/'end' events: for a small JSON
   * body that machinery cost more than parsing it. The stream still ends, so node's own bookkeeping
   * (draining, 'close') runs as usual.
   */
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk !== null && this[DRAIN_LEFT] !== undefined && !this.drained(chunk as Buffer)) return false;
    const sink = this[BODY_SINK];
    if (sink === undefined) return super.push(chunk, encoding);
    if (chunk === null) {
      this[BODY_SINK] = undefined;
      super.push(null);
      sink(null);
      return true;
    }
    sink(chunk as Buffer);
    return true;
  }

  /** Counts a chunk nobody reads; false (and the connection is cut) past the bound. */
  private drained(chunk: Buffer): boolean {
    const left = this[DRAIN_LEFT]! - chunk.length;
    if (left >= 0) {
      this[DRAIN_LEFT] = left;
      return true;
    }
    this[DRAIN_LEFT] = undefined;
    // Not from inside node's parser callback: the socket goes once the current chunk is parsed.
    const socket = this.socket;
    process.nextTick(() => socket.destroy());
    return false;
  }

  /** Someone reads the stream: the client waiting for `100 Continue` may now send the body. */
  override _read(size: number): void {
    if (this[AWAITING_CONTINUE] !== undefined) continueIfAwaited(this);
    super._read(size);
  }

  /** A request destroyed before its body completed (client gone, socket error) tells the sink. */
  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    const sink = this[BODY_SINK];
    if (sink !== undefined) {
      this[BODY_SINK] = undefined;
      sink(BODY_ABORTED);
    }
    super._destroy(err, callback);
  }

  /**
   * node calls `_dump` once the response has finished, to drain a body nobody read: it resumes the
   * stream, which after two ticks emits 'end', destroys itself and emits 'close'. When the parser
   * has already delivered the whole message, nothing is buffered and nobody listens for 'end' or
   * 'close', all of that informs no one, yet it cost about a tenth of a small request's CPU. Then
   * the ending is deferred until someone asks for it (see `on`), or the request is dropped.
   */
  _dump(): void {
    if (!this._dumped && this.complete && this.readableLength === 0 && this.listenerCount('end') === 0 && this.listenerCount('close') === 0) {
      this._dumped = true;
      this[END_DEFERRED] = true;
      return;
    }
    // node's own dump makes the parser drop the chunks before `push`, where a bound is counted.
    if (this[DRAIN_BOUND] !== undefined && !this.complete) {
      this.removeAllListeners('data');
      drainUnread(this);
      return;
    }
    (IncomingMessage.prototype as unknown as { _dump(this: IncomingMessage): void })._dump.call(this);
  }

  /** A late 'end' or 'close' listener gets what node would have emitted: the deferred ending runs now. */
  override on(event: string | symbol, listener: (...args: any[]) => void): this {
    super.on(event, listener);
    if (this[END_DEFERRED]) this.endWhenAsked(event, listener);
    return this;
  }

  override addListener(event: string | symbol, listener: (...args: any[]) => void): this {
    return this.on(event, listener);
  }

  override prependListener(event: string | symbol, listener: (...args: any[]) => void): this {
    super.prependListener(event, listener);
    if (this[END_DEFERRED]) this.endWhenAsked(event, listener);
    return this;
  }

  private endWhenAsked(event: string | symbol, listener: (...args: any[]) => void): void {
    // node's own clearIncoming waits for 'end' only to release the parser's reference, which the
    // next request on the connection replaces anyway; it does not count as someone asking.
    if ((event !== 'end' && event !== 'close') || listener.name === 'clearIncoming') return;
    this[END_DEFERRED] = false;
    this.resume();
  }

  /** The query string parsed with qs-style nesting; parsed on first use and cached per URL. */
  get query(): ParsedQuery {
    const url = this.url ?? '';
    if (this._query !== undefined && this._queryFor === url) return this._query;
    const q = url.indexOf('?');
    this._query = q === -1 ? {} : parseQuery(url.slice(q + 1));
    this._queryFor = url;
    return this._query;
  }

  set query(value: ParsedQuery) {
    this._query = value;
    this._queryFor = this.url ?? '';
  }

  /** The path part of `req.url` (relative to the current mount point), as Express's `req.path`. */
  get path(): string {
    return pathnameOf(this.url ?? '/');
  }

  /** The query string including nothing before it, or '' (no `?`). */
  get search(): string {
    const url = this.url ?? '';
    const q = url.indexOf('?');
    return q === -1 ? '' : url.slice(q);
  }

  get protocol(): string {
    return (this.socket as Socket & { encrypted?: boolean }).encrypted ? 'https' : 'http';
  }

  get secure(): boolean {
    return this.protocol === 'https';
  }

  get hostname(): string | undefined {
    const host = this.headers.host;
    if (!host) return undefined;
    const end = host[0] === '[' ? host.indexOf(']') + 1 : host.indexOf(':');
    return end <= 0 ? host : host.slice(0, end);
  }

  /**
   * The client's address: the socket's, or behind proxies the app trusts (`app.set('trust proxy', …)`)
   * the nearest untrusted hop in X-Forwarded-For (http/trust-proxy).
   */
  get ip(): string | undefined {
    return clientAddress(this, this.app?.get(TRUST_FN_SETTING) as TrustFn | undefined);
  }

  /** The trusted X-Forwarded-For chain, client first, as in Express; empty when no proxy is trusted. */
  get ips(): string[] {
    return forwardedAddresses(this, this.app?.get(TRUST_FN_SETTING) as TrustFn | undefined);
  }

  /** A request header by case-insensitive name; `Referer` and `Referrer` are interchangeable. */
  get(name: string): string | undefined {
    const lower = name.toLowerCase();
    const key = lower === 'referrer' ? 'referer' : lower;
    const value = this.headers[key];
    if (value === undefined) return undefined;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  /** Alias of `get`, as in Express. */
  header(name: string): string | undefined {
    return this.get(name);
  }

  /**
   * The first of `types` (`json`, `application/*`, `+json`) the request's Content-Type matches, as
   * type-is (Express's `req.is`) answers it; false without a (well-formed) Content-Type.
   */
  is(...types: string[]): string | false {
    const ct = this.headers['content-type'];
    const parsed = ct === undefined ? undefined : parseContentType(ct);
    if (parsed === undefined) return false;
    return typeis.is(parsed.type, types.flat()) || false;
  }
}

/** The path of a request target: drops the query, and scheme+authority of an absolute-form target. */
export function pathnameOf(url: string): string {
  let start = 0;
  if (url[0] !== '/') {
    const scheme = url.indexOf('://');
    if (scheme !== -1) {
      const slash = url.indexOf('/', scheme + 3);
      if (slash === -1) return '/';
      start = slash;
    }
  }
  let end = url.indexOf('?', start);
  if (end === -1) end = url.length;
  // A fragment never belongs to a request target, but be safe if a client sends one.
  const hash = url.indexOf('#', start);
  if (hash !== -1 && hash < end) end = hash;
  return start === 0 && end === url.length ? url : url.slice(start, end);
}

/** Gives a plain IncomingMessage the Request prototype and fields (for `http.createServer(app)`). */
export function adoptRequest(req: IncomingMessage): Request {
  if (req instanceof Request) return req;
  Object.setPrototypeOf(req, Request.prototype);
  initRequest(req as Request);
  return req as Request;
}

/** The per-request fields, always assigned in this order (one object shape for every request). */
function initRequest(r: Request): void {
  const fields = r as unknown as Record<string, unknown>;
  r.params = {};
  r.body = undefined;
  r.rawBody = undefined;
  r.baseUrl = '';
  r.originalUrl = '';
  r.originalMethod = undefined;
  r.res = undefined;
  r.next = undefined;
  r.locals = {};
  r.route = undefined;
  r.app = undefined;
  fields._query = undefined;
  fields._queryFor = undefined;
  r[BODY_SINK] = undefined;
  r[END_DEFERRED] = false;
  r[AWAITING_CONTINUE] = undefined;
  r[DRAIN_BOUND] = undefined;
  r[DRAIN_LEFT] = undefined;
}

/**
 * Discards the rest of a body nobody will read, so the next request on the connection can be
 * parsed; with a bound (http/unread-body), the connection is cut once more than that arrives.
 */
export function drainUnread(req: Request): void {
  const bound = req[DRAIN_BOUND];
  if (bound !== undefined) {
    req[DRAIN_BOUND] = undefined;
    req[DRAIN_LEFT] = bound;
  }
  req.resume();
}

/**
 * Sends the `100 Continue` the client waits for (RFC 9110 §10.1.1), once, and only while no final
 * response has started: after one, the client must not be invited to send the body.
 */
export function continueIfAwaited(req: Request): void {
  const res = req[AWAITING_CONTINUE];
  if (res === undefined) return;
  req[AWAITING_CONTINUE] = undefined;
  if (!res.headersSent && !res.writableEnded) res.writeContinue();
}
