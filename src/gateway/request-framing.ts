/**
 * @module gateway/request-framing
 * How the gateway frames a request's content for the origin (RFC 9112 §6), recomputed from the
 * message node's parser read, never copied line by line from the client's header section.
 *
 * Copying is what let bodies become requests: a `Connection` header naming Content-Length removed
 * the length but not the body, and node's `http.request` writes a body with no framing at all for
 * DELETE, OPTIONS, TRACE and HEAD unless it is told one. Here the framing field is always derived
 * from what is actually sent, and always present when a body is.
 */
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { isHttp2Request } from './exchange.js';

/** The framing field line to send with the client's body, or undefined when it has none to send. */
export type Framing = readonly [name: 'Content-Length' | 'Transfer-Encoding', value: string] | undefined;

/**
 * The framing for forwarding `req`'s content. node's parser has already refused the ambiguous
 * messages (Content-Length with Transfer-Encoding, differing lengths, a final coding other than
 * chunked: RFC 9112 §6.1, §6.3), so exactly one of the two describes the body it delivers.
 *
 * Transfer codings are forwarded as the client listed them (RFC 9112 §6.1 lets an intermediary
 * keep them); node's client chunks the body itself whenever the field ends in `chunked`.
 * A length is sent in canonical form: leading zeros are legal but read differently by some parsers.
 *
 * HTTP/2 frames content itself (DATA frames, RFC 9113 §8.1) and may send it without a length: such
 * content goes to the origin chunked. It has none when the HEADERS frame ended the stream.
 */
export function requestFraming(req: IncomingMessage): Framing {
  if (isHttp2Request(req)) {
    const length = req.headers['content-length'];
    if (length !== undefined) return ['Content-Length', length.replace(/^0+(?=\d)/, '')];
    return (req as unknown as Http2ServerRequest).stream.endAfterHeaders ? undefined : ['Transfer-Encoding', 'chunked'];
  }
  const codings = req.headers['transfer-encoding'];
  if (codings !== undefined) return ['Transfer-Encoding', codings];
  const length = req.headers['content-length'];
  if (length !== undefined) return ['Content-Length', length.replace(/^0+(?=\d)/, '')];
  // RFC 9112 §6.3: a request with neither has no content.
  return undefined;
}
