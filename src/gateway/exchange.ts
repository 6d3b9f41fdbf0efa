/**
 * @module gateway/exchange
 * Where an HTTP/2 exchange differs from an HTTP/1.1 one for the gateway's steps.
 *
 * Over TLS the gateway's listener speaks both (ALPN), and node hands HTTP/2 requests over as its
 * compatibility objects (`Http2ServerRequest`, `Http2ServerResponse`). The gateway's steps are typed
 * with node:http's `IncomingMessage` and `ServerResponse` and use only what both kinds provide
 * (method, url, headers, rawHeaders, socket.remoteAddress, the Readable body; writeHead with a flat
 * field list, write, end, headersSent, writableFinished, 'close', 'drain', writeContinue, destroy).
 * The few differences go through this module: the head (no reason phrase, no connection-specific
 * fields: RFC 9113 §8.1.1, §8.2.2), a client gone (`destroyed` is not kept on HTTP/2), and interim
 * responses.
 */
import type { IncomingMessage, InformationEvent, ServerResponse } from 'node:http';
import { Http2ServerRequest, Http2ServerResponse, type OutgoingHttpHeaders } from 'node:http2';
import { headWithId } from './gateway-access.js';

/** Whether `res` answers an HTTP/2 stream. */
export function isHttp2(res: ServerResponse): boolean {
  return (res as unknown) instanceof Http2ServerResponse;
}

/** Whether `req` arrived on an HTTP/2 stream. */
export function isHttp2Request(req: IncomingMessage): boolean {
  return (req as unknown) instanceof Http2ServerRequest;
}

/**
 * RFC 9113 §8.2.2: fields an HTTP/2 message must not carry. node drops them from a response with a
 * process warning; they are left out here instead (the origin's hop-by-hop ones never get this far).
 */
const NOT_ON_HTTP2: ReadonlySet<string> = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'http2-settings', 'te',
]);

/**
 * Fields node's HTTP/2 layer allows once per message (it throws on a repeat); a later value
 * replaces an earlier one. The list is node's own (lib/internal/http2/util.js).
 */
const SINGLE_VALUE: ReadonlySet<string> = new Set([
  'access-control-allow-credentials', 'access-control-max-age', 'access-control-request-method', 'age', 'authorization',
  'content-encoding', 'content-language', 'content-length', 'content-location', 'content-md5', 'content-range', 'content-type',
  'date', 'dnt', 'etag', 'expires', 'from', 'if-match', 'if-modified-since', 'if-none-match', 'if-range',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'range', 'referer',
  'retry-after', 'tk', 'upgrade-insecure-requests', 'user-agent', 'x-content-type-options',
]);

/**
 * Writes a response head from a flat [name, value…] list. HTTP/1.1 keeps the reason phrase; HTTP/2
 * has none (RFC 9113 §8.3.2) and gets the fields as an object, repeated names as one list (as
 * repeated lines on HTTP/1.1: the origin's `X-Cache` beside this hop's), except those node holds to
 * one value, where the later one wins.
 */
export function writeHead(res: ServerResponse, status: number, reason: string | undefined, head: string[]): void {
  const fields = headWithId(res, head);
  if (!isHttp2(res)) {
    res.writeHead(status, reason, fields);
    return;
  }
  const headers: OutgoingHttpHeaders = {};
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!.toLowerCase();
    if (NOT_ON_HTTP2.has(name)) continue;
    const value = fields[i + 1]!;
    const prev = headers[name];
    if (prev === undefined || SINGLE_VALUE.has(name)) headers[name] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else headers[name] = [prev as string, value];
  }
  (res as unknown as Http2ServerResponse).writeHead(status, headers);
}

/** Whether the client has gone (its connection or stream closed) before the response finished. */
export function clientGone(res: ServerResponse): boolean {
  if (res.destroyed) return true;
  return isHttp2(res) && ((res as unknown as Http2ServerResponse).stream?.destroyed ?? true);
}

/**
 * Forwards one 1xx interim response (RFC 9110 §15.2) other than 101, which node handles itself.
 * `100 Continue` goes to a client that sent Expect (RFC 9110 §10.1.1): the origin decides whether
 * it wants the body. Others (103 Early Hints) go as raw bytes on HTTP/1.1, for node's response has
 * no call for an arbitrary 1xx, and as an extra HEADERS frame on HTTP/2 (`additionalHeaders`, RFC
 * 9113 §8.1), without the fields HTTP/2 forbids.
 */
export function sendInterim(res: ServerResponse, info: InformationEvent): void {
  if (info.statusCode === 101 || res.headersSent || res.socket === null || clientGone(res)) return;
  if (info.statusCode === 100) {
    if (res.req.headers.expect !== undefined) res.writeContinue();
    return;
  }
  if (isHttp2(res)) {
    const headers: OutgoingHttpHeaders = { ':status': info.statusCode };
    for (let i = 0; i < info.rawHeaders.length; i += 2) {
      const name = info.rawHeaders[i]!.toLowerCase();
      if (NOT_ON_HTTP2.has(name)) continue;
      const value = info.rawHeaders[i + 1]!;
      const prev = headers[name];
      headers[name] = prev === undefined ? value : `${String(prev)}, ${value}`;
    }
    try {
      (res as unknown as Http2ServerResponse).stream.additionalHeaders(headers);
    } catch {
      // The stream closed meanwhile, or a field node will not send: a hint is advisory, the final response follows.
    }
    return;
  }
  let head = `HTTP/1.1 ${info.statusCode} ${info.statusMessage}\r\n`;
  for (let i = 0; i < info.rawHeaders.length; i += 2) head += `${info.rawHeaders[i]}: ${info.rawHeaders[i + 1]}\r\n`;
  res.socket.write(head + '\r\n');
}

/**
 * An HTTP/2 request names its authority in `:authority` (RFC 9113 §8.3.1), which node's
 * compatibility layer does not copy to `headers.host`. Copied here, so that the cache key, Vary,
 * invalidation and the origin's Host read one field whichever protocol the client spoke.
 */
export function adoptAuthority(req: IncomingMessage): void {
  const authority = req.headers[':authority'];
  if (req.headers.host === undefined && typeof authority === 'string') req.headers.host = authority;
}
