/**
 * @module gateway/upstream-headers
 * The header fields a request carries on to the origin.
 */
import type { IncomingMessage } from 'node:http';
import type { StoredResponse } from './cache-store.js';
import type { GatewayContext } from './gateway-context.js';
import { addVia, HOP_BY_HOP } from './headers.js';
import type { Framing } from './request-framing.js';

/** Request fields replaced by the cache's own validators when it revalidates. */
const CLIENT_CONDITIONALS = new Set(['if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range', 'range']);

/**
 * Request fields for the origin: hop-by-hop removed, Accept normalised, Via added, validators
 * swapped in, exactly one Host, the client's address appended to X-Forwarded-For, and the body's
 * framing as it is actually sent (`framing`, from request-framing), never the client's
 * Content-Length line.
 */
export function upstreamHeaders(ctx: GatewayContext, req: IncomingMessage, validate: StoredResponse | undefined, framing?: Framing): string[] {
  const raw = req.rawHeaders;
  const normalise = ctx.normalise;
  const out: string[] = [];
  let listed: Set<string> | undefined;
  const connection = req.headers.connection;
  if (connection !== undefined) listed = new Set(connection.split(',').map((t) => t.trim().toLowerCase()));
  let via: string | undefined;
  let forwardedFor: string | undefined;
  let host = false;
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(lower) || lower === 'content-length') continue;
    // RFC 9110 §7.6.1 lets Connection name hop-by-hop fields; Host is not one (scanRequest has
    // checked there is exactly one), and the framing is the caller's (`framing`, appended below),
    // so a Connection option can drop neither.
    if (lower === 'host') host = true;
    else if (listed?.has(lower)) continue;
    if (lower === 'via') {
      via = via === undefined ? raw[i + 1] : `${via}, ${raw[i + 1]}`;
      continue;
    }
    if (lower === 'x-forwarded-for') {
      forwardedFor = forwardedFor === undefined ? raw[i + 1] : `${forwardedFor}, ${raw[i + 1]}`;
      continue;
    }
    if (normalise !== undefined && lower === 'accept') continue;
    if (validate !== undefined && CLIENT_CONDITIONALS.has(lower)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  // RFC 9112 §3.2: an HTTP/1.0 client may leave Host out; the origin is spoken to in HTTP/1.1.
  if (!host) out.push('Host', ctx.upstreamHost);
  out.push('Via', addVia(via, 'roa'));
  // The origin's failed-login throttle counts per client address; behind this hop every client
  // would otherwise be this gateway. X-Forwarded-For rather than RFC 7239 Forwarded: it is what
  // Express's `trust proxy` (proxy-addr) reads and what Varnish appends, so one convention holds
  // along the whole chain. What the client sent stays in front of it, to be believed only as far as
  // the origin trusts each hop. Never part of the cache key: a hit is not forwarded at all.
  out.push('X-Forwarded-For', forwardedFor === undefined ? clientOf(req) : `${forwardedFor}, ${clientOf(req)}`);
  if (normalise !== undefined && req.headers.accept !== undefined) out.push('Accept', req.headers.accept);
  if (validate !== undefined) {
    if (validate.etag !== undefined) out.push('If-None-Match', validate.etag);
    if (validate.lastModified !== undefined) out.push('If-Modified-Since', validate.lastModified);
  }
  if (framing !== undefined) out.push(framing[0], framing[1]);
  return out;
}

/** The client's address for X-Forwarded-For (`unknown` once its socket is gone, as RFC 7239 §6.2 writes it). */
function clientOf(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}
