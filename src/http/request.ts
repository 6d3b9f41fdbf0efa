/**
 * @module http/request
 * The request object handlers receive: node's IncomingMessage plus Express 4's conveniences.
 * The server is created with this class (`http.createServer({ IncomingMessage: Request })`), so no
 * prototype is swapped per request; `adoptRequest` covers apps mounted on a plain node server.
 * Everything here is public node API; http/fast-request subclasses it with the overrides of node's
 * private IncomingMessage methods (the `incomingMessage` fast path).
 */
import { IncomingMessage, type ServerResponse } from 'node:http';
import { Http2ServerRequest } from 'node:http2';
import type { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import typeis from 'type-is';
import { parseContentType } from './content-type.js';
import { parseQuery, type ParsedQuery } from './query.js';
import { forwardedHost, forwardedProto } from './forwarded.js';
import { clientAddress, forwardedAddresses, TRUST_FN_SETTING, type TrustFn } from './trust-proxy.js';
import type { Response } from './response.js';

export type NextFunction = (err?: unknown) => void;

/**
 * Where http/body takes a body straight from node's HTTP parser (see `FastRequest.push`): each chunk,
 * then null at the end, or BODY_ABORTED when the request is destroyed first. Only a FastRequest has
 * this field (`BODY_SINK in req`).
 */
export const BODY_SINK = Symbol('roa.bodySink');
export const BODY_ABORTED = Symbol('roa.bodyAborted');
export type BodySink = (chunk: Buffer | null | typeof BODY_ABORTED) => void;

/**
 * The response that owes `100 Continue` once the body is read (RFC 9110 §10.1.1): set by the
 * server's `checkContinue` listener, so a request refused on its headers alone gets only its final
 * status, and the client never sends a body nobody wants.
 */
export const AWAITING_CONTINUE = Symbol('roa.awaitingContinue');

/** How many unread body bytes may be drained before the connection is cut (http/unread-body). */
export const DRAIN_BOUND = Symbol('roa.drainBound');
/** Set while an unread body is drained: the bytes still allowed (see `countDrained`). */
export const DRAIN_LEFT = Symbol('roa.drainLeft');
/** Set once something read the stream (node's own `_consuming`, kept by public means). */
const READ_ASKED = Symbol('roa.readAsked');

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
  /** This request's id (middleware/request-id: kept from X-Request-Id or traceparent, else made); '' until given. */
  declare id: string;
  /** `performance.now()` when the access log first saw the request (middleware/access-log); 0 without one. */
  declare receivedAt: number;
  declare private _query: ParsedQuery | undefined;
  declare private _queryFor: string | undefined;
  /** Only a FastRequest has this field; typed here for http/body, which tests `BODY_SINK in req`. */
  declare [BODY_SINK]: BodySink | undefined;
  declare [AWAITING_CONTINUE]: ServerResponse | undefined;
  declare [DRAIN_BOUND]: number | undefined;
  declare [DRAIN_LEFT]: number | undefined;
  declare [READ_ASKED]: boolean;

  constructor(socket: Socket) {
    super(socket);
    initRequest(this);
  }

  /** Sets the fields a subclass adds, on a request given its prototype by `adoptRequest`. */
  static initFields(_req: Request): void {}

  /** Someone reads the stream: the client waiting for `100 Continue` may now send the body. */
  override _read(size: number): void {
    this[READ_ASKED] = true;
    if (this[AWAITING_CONTINUE] !== undefined) continueIfAwaited(this);
    super._read(size);
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

  /**
   * 'https' over TLS (an HTTP/2 request's socket included); otherwise what a proxy the app trusts
   * says in X-Forwarded-Proto or `Forwarded: proto=` (http/forwarded), else 'http'.
   */
  get protocol(): string {
    if ((this.socket as Socket & { encrypted?: boolean }).encrypted) return 'https';
    return forwardedProto(this, this.app?.get(TRUST_FN_SETTING) as TrustFn | undefined) ?? 'http';
  }

  /** Whether the request reached the client's end over TLS (`protocol === 'https'`). */
  get secure(): boolean {
    return this.protocol === 'https';
  }

  /**
   * The host the client asked for, port included (as Express 5's `req.host`): a trusted proxy's
   * X-Forwarded-Host or `Forwarded: host=` (http/forwarded), else the Host header.
   */
  get host(): string | undefined {
    return forwardedHost(this, this.app?.get(TRUST_FN_SETTING) as TrustFn | undefined) ?? (this.headers.host || undefined);
  }

  /** `host` without its port; an IPv6 literal keeps its brackets (`[::1]`), as in Express. */
  get hostname(): string | undefined {
    const host = this.host;
    if (host === undefined) return undefined;
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

/**
 * What an HTTP/2 compatibility request becomes: http/http2-messages registers its Http2Request when
 * it loads (that class takes its conveniences from Request, so this module cannot import it).
 */
type Http2RequestClass = (new (...args: never[]) => Http2ServerRequest) & { initFields(req: Request): void };
let http2RequestClass: Http2RequestClass | undefined;

/** Called once by http/http2-messages. */
export function registerHttp2Request(cls: Http2RequestClass): void {
  http2RequestClass = cls;
}

/**
 * Gives a plain IncomingMessage the prototype and fields of `as` (Request, or http/fast-request's
 * FastRequest), for an app serving `http.createServer(app)`. node:http2's compatibility request
 * (`http2.createSecureServer(…, app)`) is not an IncomingMessage: it gets http/http2-messages'
 * Http2Request, which carries the same conveniences; it is typed as a Request for the handlers.
 */
export function adoptRequest(req: IncomingMessage | Http2ServerRequest, as: typeof Request = Request): Request {
  if (req instanceof Request) return req;
  if (req instanceof Http2ServerRequest) {
    const h2 = http2RequestClass;
    if (h2 === undefined) throw new Error('roa: HTTP/2 requests need http/http2-messages loaded (createApp loads it)');
    if (req instanceof h2) return req as unknown as Request;
    Object.setPrototypeOf(req, h2.prototype);
    initRequest(req as unknown as Request);
    h2.initFields(req as unknown as Request);
    return req as unknown as Request;
  }
  Object.setPrototypeOf(req, as.prototype);
  initRequest(req as Request);
  as.initFields(req as Request);
  return req as Request;
}

/**
 * The per-request fields, always assigned in this order (one object shape for every request);
 * http/http2-messages' Http2Request is given the same.
 */
export function initRequest(r: Request): void {
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
  r.id = '';
  r.receivedAt = 0;
  fields._query = undefined;
  fields._queryFor = undefined;
  r[AWAITING_CONTINUE] = undefined;
  r[DRAIN_BOUND] = undefined;
  r[DRAIN_LEFT] = undefined;
  r[READ_ASKED] = false;
}

/**
 * Discards the rest of a body nobody will read, so the next request on the connection can be
 * parsed; with a bound (http/unread-body), the connection is cut once more than that arrives.
 */
export function drainUnread(req: Request): void {
  const bound = req[DRAIN_BOUND];
  if (bound !== undefined) {
    req[DRAIN_BOUND] = undefined;
    if (isFast(req)) {
      // Counted in `push`, from the next chunk node's parser hands over.
      req[DRAIN_LEFT] = bound;
    } else {
      // Counted as the stream hands chunks out; those it holds already are not new, as with `push`.
      req[DRAIN_LEFT] = bound + req.readableLength;
      req.on('data', countUnread);
    }
  }
  req.resume();
}

/** A FastRequest (http/fast-request), the only kind that owns a BODY_SINK field. */
function isFast(req: Request): boolean {
  return Object.hasOwn(req, BODY_SINK);
}

function countUnread(this: Request, chunk: Buffer): void {
  if (!countDrained(this, chunk)) this.off('data', countUnread);
}

/**
 * Counts a chunk of a body nobody reads against the drain bound; false once past it, and the
 * connection is cut (not from inside node's parser callback: once the current chunk is parsed).
 */
export function countDrained(req: Request, chunk: Buffer): boolean {
  const left = req[DRAIN_LEFT]! - chunk.length;
  if (left >= 0) {
    req[DRAIN_LEFT] = left;
    return true;
  }
  req[DRAIN_LEFT] = undefined;
  const socket = req.socket;
  process.nextTick(() => closeLingering(socket));
  return false;
}

/** How long a connection cut past the drain bound may still take (and discard) its client's bytes. */
const LINGER_MS = 2_000;

/**
 * Closes a connection whose client is still sending a body nobody reads: a lingering close
 * (RFC 9112 §9.6, as nginx and Apache do). Sending FIN after the response and discarding what
 * arrives gives the client time to read the response; destroying at once would answer its next
 * write with a reset that can destroy the response it has not read yet (a gateway in front would
 * report 502 for a 413). The socket is destroyed when the client closes or after LINGER_MS.
 */
function closeLingering(socket: Socket): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.end();
}

/**
 * Bounds the drain of a body left unread when the response finishes (http/unread-body), by public
 * means: node drains such a body itself from its own 'finish' listener (`_dump`), without a bound;
 * this listener runs ahead of node's and starts the bounded drain instead, which node then leaves
 * alone, since the stream is being read. A FastRequest does the same in its `_dump`.
 */
export function drainWhenAnswered(req: Request, res: ServerResponse): void {
  if (req[DRAIN_BOUND] === undefined || isFast(req)) return;
  res.prependOnceListener('finish', () => {
    // node drains only a stream nobody reads or resumed (its `_consuming`, `resumeScheduled`).
    if (req[DRAIN_BOUND] === undefined || req.complete || req[READ_ASKED] || req.readableFlowing === true) return;
    // As node's own drain: 'data' listeners of a reader that gave up do not see the rest.
    req.removeAllListeners('data');
    drainUnread(req);
  });
}

/**
 * A server's 'checkContinue' listener (RFC 9110 §10.1.1): `100 Continue` is owed only once
 * something reads the body (http/body or a stream reader), so a request refused on its headers gets
 * its final status alone. The request goes to whatever 'request' listener the server has (the
 * service installs its own app). node emits this for HTTP/1.1 and HTTP/2 alike.
 */
export function dispatchAwaitingContinue(this: EventEmitter, req: Request, res: ServerResponse): void {
  req[AWAITING_CONTINUE] = res;
  this.emit('request', req, res);
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
