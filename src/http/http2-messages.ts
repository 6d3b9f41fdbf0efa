/**
 * @module http/http2-messages
 * The request and response of an HTTP/2 stream: node:http2's compatibility classes with the same
 * Express conveniences as http/request's Request and http/response's Response. Those are not
 * written twice: Request's and Response's own accessors and methods are copied onto these
 * prototypes when this module loads, so both protocols run one implementation.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Http2ServerRequest, Http2ServerResponse, type ServerHttp2Stream } from 'node:http2';
import { AWAITING_CONTINUE, continueIfAwaited, initRequest, registerHttp2Request, Request } from './request.js';
import { finalHead, registerHttp2Response, Response, type Head } from './response.js';
import { fieldIndex } from './field-name.js';

/** What Request adds to IncomingMessage; node:http2 provides the message part. */
type RequestConveniences = Omit<Request, keyof IncomingMessage>;
/** What Response adds to ServerResponse; node:http2 provides the message part. */
type ResponseConveniences = Omit<Response, keyof ServerResponse>;

// The members are Request's, copied onto the prototype below (`shareMembers`).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the interface only types the members shareMembers copies onto the class
export interface Http2Request extends RequestConveniences {}

/**
 * An HTTP/2 request with Request's conveniences (`query`, `path`, `hostname`, `ip`, `get`, `is`,
 * `params`, `body`, `locals`, …). Handlers are typed with Request and receive this over HTTP/2.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- merged with the interface above, whose members are copied at load
export class Http2Request extends Http2ServerRequest {
  constructor(stream: ServerHttp2Stream, headers: ConstructorParameters<typeof Http2ServerRequest>[1], options: ConstructorParameters<typeof Http2ServerRequest>[2], rawHeaders: readonly string[]) {
    super(stream, headers, options, rawHeaders);
    initRequest(this as unknown as Request);
    Http2Request.initFields(this as unknown as Request);
  }

  /**
   * RFC 9113 §8.3.1: `:authority` takes the place of Host. When the client sent no Host, the
   * authority is copied into `headers.host`, so `hostname`, the Host check (http/host), the
   * gateway and same-origin checks read the one field they read over HTTP/1.1.
   */
  static initFields(req: Request): void {
    const headers = req.headers;
    if (headers.host !== undefined) return;
    const authority = headers[':authority'];
    if (typeof authority === 'string') headers.host = authority;
  }

  /** Someone reads the stream: the client waiting for `100 Continue` may now send the body. */
  override _read(size: number): void {
    if (this[AWAITING_CONTINUE] !== undefined) continueIfAwaited(this as unknown as Request);
    super._read(size);
  }
}

// The members are Response's, copied onto the prototype below (`shareMembers`).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the interface only types the members shareMembers copies onto the class
export interface Http2Response extends ResponseConveniences {}

/**
 * An HTTP/2 response with Response's senders (`status`, `set`, `get`, `append`, `type`, `vary`,
 * `location`, `send`, `json`, `sendStatus`, `format`, `locals`). Handlers are typed with Response
 * and receive this over HTTP/2.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- merged with the interface above, whose members are copied at load
export class Http2Response extends Http2ServerResponse<Http2Request> {
  constructor(stream: ServerHttp2Stream) {
    super(stream);
    Http2Response.initFields(this as unknown as Response);
  }

  static initFields(res: Response): void {
    res.locals = {};
    res.lateFields = undefined;
    res.headFilter = undefined;
  }

  /**
   * RFC 9113 §8.2.2: connection-specific fields do not exist in HTTP/2. node drops `Connection`
   * with a warning and refuses the others when the headers are sent; code written for HTTP/1.1
   * (a 400 or 408 problem that closes the connection, say) sets them, so they are dropped here
   * without a word.
   */
  override setHeader(name: string, value: number | string | readonly string[]): void {
    if (!isConnectionSpecific(name)) super.setHeader(name, value);
  }

  override appendHeader(name: string, value: string | string[]): void {
    if (!isConnectionSpecific(name)) super.appendHeader(name, value);
  }

  /**
   * node's HTTP/2 `writeHead` takes a flat [name, value, …] list the slow way: it removes each name,
   * then appends it, validating twice. roa's resources and senders write their headers as such a
   * list, so each field is set here instead (a name repeated in the list is appended, in order), and
   * node then sends what is set. A status message is dropped: HTTP/2 has none (RFC 9113 §8.3.2).
   */
  override writeHead(statusCode: number, reasonOrHeaders?: string | OutgoingHttpHeaders | readonly string[], maybeHeaders?: OutgoingHttpHeaders | readonly string[]): this {
    let headers = typeof reasonOrHeaders === 'string' ? maybeHeaders : reasonOrHeaders;
    const self = this as unknown as Response;
    if (self.lateFields !== undefined || self.headFilter !== undefined) headers = finalHead(self, statusCode, headers as Head) as typeof headers;
    if (headers === undefined) return super.writeHead(statusCode);
    if (!Array.isArray(headers) || (headers.length > 0 && Array.isArray(headers[0]))) return super.writeHead(statusCode, headers as OutgoingHttpHeaders);
    const list = headers as readonly string[];
    if (list.length % 2 !== 0) throw new TypeError('roa: a header list must hold name, value pairs');
    // Closed already (the client reset the stream): node's writeHead does nothing then, nor do we.
    if (this.stream.destroyed || this.stream.closed) return this;
    for (let i = 0; i < list.length; i += 2) {
      const name = list[i]!;
      if (repeatsEarlier(list, i)) this.appendHeader(name, list[i + 1]!);
      else this.setHeader(name, list[i + 1]!);
    }
    return super.writeHead(statusCode);
  }
}

/** Whether the name at `i` of a flat header list already came earlier in it (case-insensitively). */
function repeatsEarlier(list: readonly string[], i: number): boolean {
  return i > 0 && fieldIndex(list, list[i]!.toLowerCase(), i) !== -1;
}

const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

function isConnectionSpecific(name: string): boolean {
  // Most names have another length: no lowercasing on the usual path.
  const n = name.length;
  return (n === 7 || n === 10 || n === 16 || n === 17) && CONNECTION_SPECIFIC.has(name.toLowerCase());
}

/**
 * Copies the accessors and methods `from` defines itself onto `to`, except the constructor, node's
 * underscored stream and message internals (IncomingMessage's `_read` is not HTTP/2's), and what
 * `to` defines itself (its HTTP/2 overrides).
 */
function shareMembers(from: object, to: object): void {
  for (const key of Reflect.ownKeys(from)) {
    if (key === 'constructor' || (typeof key === 'string' && key.startsWith('_')) || Object.hasOwn(to, key)) continue;
    Object.defineProperty(to, key, Object.getOwnPropertyDescriptor(from, key)!);
  }
}

shareMembers(Request.prototype, Http2Request.prototype);
shareMembers(Response.prototype, Http2Response.prototype);
registerHttp2Request(Http2Request);
registerHttp2Response(Http2Response);
