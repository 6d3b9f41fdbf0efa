/**
 * @module gateway/upstream-headers
 * The header fields a request carries on to the origin.
 */
import type { IncomingMessage } from 'node:http';
import type { StoredResponse } from './cache-store.js';
import { isHttp2Request } from './exchange.js';
import { FORWARDING_FIELDS } from './forwarded-headers.js';
import type { GatewayContext } from './gateway-context.js';
import { addVia, HOP_BY_HOP } from './headers.js';
import type { Framing } from './request-framing.js';

/** Request fields replaced by the cache's own validators when it revalidates. */
const CLIENT_CONDITIONALS = new Set(['if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range', 'range']);

/**
 * Request fields for the origin: hop-by-hop removed, Accept normalised, Via added, validators
 * swapped in, exactly one Host, this hop's X-Forwarded-* (see {@link forwardingFields}), and the
 * body's framing as it is actually sent (`framing`, from request-framing), never the client's
 * Content-Length line.
 *
 * The origin is spoken to in HTTP/1.1 whatever the client spoke. From an HTTP/2 client the
 * pseudo-headers are left out, Host is its `:authority` (set as `req.headers.host` on arrival, see
 * gateway/proxy) and its Cookie fields go as one line joined with "; " (RFC 9113 §8.2.3).
 */
export function upstreamHeaders(ctx: GatewayContext, req: IncomingMessage, validate: StoredResponse | undefined, framing?: Framing): string[] {
  const raw = req.rawHeaders;
  const normalise = ctx.normalise;
  const out: string[] = [];
  let listed: Set<string> | undefined;
  const connection = req.headers.connection;
  if (connection !== undefined) listed = new Set(connection.split(',').map((t) => t.trim().toLowerCase()));
  let via: string | undefined;
  const trusted = ctx.peerTrusted(req.socket.remoteAddress);
  const sent: ForwardingSent = { for: undefined, proto: false, host: false, forwarded: false };
  let host = false;
  const h2 = isHttp2Request(req);
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(lower) || lower === 'content-length') continue;
    // The request's id as the gateway settled it (gateway/gateway-access) goes instead, below.
    if (lower === 'x-request-id') continue;
    if (h2 && (lower.charCodeAt(0) === 0x3a || lower === 'cookie')) continue;
    // RFC 9110 §7.6.1 lets Connection name hop-by-hop fields; Host is not one (scanRequest has
    // checked there is exactly one), and the framing is the caller's (`framing`, appended below),
    // so a Connection option can drop neither.
    if (lower === 'host') host = true;
    else if (listed?.has(lower)) continue;
    if (lower === 'via') {
      via = via === undefined ? raw[i + 1] : `${via}, ${raw[i + 1]}`;
      continue;
    }
    if (FORWARDING_FIELDS.has(lower)) {
      // From a peer not trusted, what it says about earlier hops is dropped: this hop says its own.
      if (!trusted) continue;
      if (lower === 'x-forwarded-for') {
        sent.for = sent.for === undefined ? raw[i + 1] : `${sent.for}, ${raw[i + 1]}`;
        continue;
      }
      if (lower === 'x-forwarded-proto') sent.proto = true;
      else if (lower === 'x-forwarded-host') sent.host = true;
      else sent.forwarded = true;
    }
    if (normalise !== undefined && lower === 'accept') continue;
    if (validate !== undefined && CLIENT_CONDITIONALS.has(lower)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  // RFC 9112 §3.2: an HTTP/1.0 client may leave Host out; the origin is spoken to in HTTP/1.1.
  if (!host) out.push('Host', req.headers.host ?? ctx.upstreamHost);
  if (h2 && req.headers.cookie !== undefined) out.push('Cookie', req.headers.cookie);
  out.push('Via', addVia(via, 'roa'));
  const id = req.headers['x-request-id'];
  if (typeof id === 'string') out.push('X-Request-Id', id);
  forwardingFields(ctx, req, sent, out);
  if (normalise !== undefined && req.headers.accept !== undefined) out.push('Accept', req.headers.accept);
  if (validate !== undefined) {
    if (validate.etag !== undefined) out.push('If-None-Match', validate.etag);
    if (validate.lastModified !== undefined) out.push('If-Modified-Since', validate.lastModified);
  }
  if (framing !== undefined) out.push(framing[0], framing[1]);
  return out;
}

/** What a trusted peer said about earlier hops. */
interface ForwardingSent {
  /** Its X-Forwarded-For lines, joined. */
  for: string | undefined;
  proto: boolean;
  host: boolean;
  forwarded: boolean;
}

/**
 * This hop's X-Forwarded-For, -Proto and -Host. The origin reads them (Express's `trust proxy`,
 * proxy-addr) for the client's address, its throttles' key, whether the request came over TLS and
 * the public origin its absolute URLs name; behind this hop every client would otherwise be this
 * gateway, over plain HTTP, at the origin's address. X-Forwarded-* rather than RFC 7239 Forwarded:
 * it is what Express reads and what Varnish appends, so one convention holds along the chain.
 *
 * From a peer outside `trustProxy` (a client), whatever it sent was dropped above and the fields
 * say what this hop saw: the peer's address, `https` or `http` as it reached this listener, and its
 * Host (`:authority` on HTTP/2). From a trusted peer (a TLS terminator in front) its fields are kept,
 * this hop's peer is appended to X-Forwarded-For, and Proto and Host are added only when it said
 * neither them nor Forwarded, since it knows the client's side better than this hop does.
 *
 * None of them is part of the cache key (a hit is not forwarded at all), and stored responses stay
 * right for every client: a gateway has one listener, so every fill it makes says the same
 * protocol, and Host is what clients asked for (keyed on with `keyByHost`, or one origin's alone).
 */
function forwardingFields(ctx: GatewayContext, req: IncomingMessage, sent: ForwardingSent, out: string[]): void {
  const peer = clientOf(req);
  out.push('X-Forwarded-For', sent.for === undefined ? peer : `${sent.for}, ${peer}`);
  if (!sent.proto && !sent.forwarded) out.push('X-Forwarded-Proto', ctx.protocol);
  const clientHost = req.headers.host;
  if (!sent.host && !sent.forwarded && clientHost !== undefined) out.push('X-Forwarded-Host', clientHost);
}

/** The client's address for X-Forwarded-For (`unknown` once its socket is gone, as RFC 7239 §6.2 writes it). */
function clientOf(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}
