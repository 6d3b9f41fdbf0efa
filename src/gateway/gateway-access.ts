/**
 * @module gateway/gateway-access
 * The gateway's side of request ids and access logs: each request gets its id (kept from a valid
 * X-Request-Id or traceparent, else made: middleware/request-id), which goes on to the origin (so
 * both access logs carry the same id) and back in the response's `X-Request-Id`, a hit's included.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { requestIdOf } from '../middleware/request-id.js';
import type { GatewayLogger } from './proxy.js';

const START = Symbol('roa.gatewayStart');
const ID = Symbol('roa.requestId');
const CACHE_STATUS = Symbol('roa.cacheStatus');

type Timed = IncomingMessage & { [START]?: number; [ID]?: string; [CACHE_STATUS]?: string };

/**
 * The head a response is written with (gateway/exchange `writeHead`): `head` plus the id this
 * gateway settled for the request, as a copy (a hit's head is the stored response's own array).
 * Not set with `res.setHeader`: node's writeHead then merges a flat field list by name, and
 * repeated fields (Set-Cookie lines, the origin's X-Cache beside this hop's) would collapse to one.
 * When the request is logged, its Cache-Status (among the last fields) is noted for the log line.
 */
export function headWithId(res: ServerResponse, head: string[]): string[] {
  const req = res.req as Timed | undefined;
  const id = req?.[ID];
  if (id === undefined) return head;
  if (req![START] !== undefined) {
    for (let i = head.length - 2; i >= 0 && i >= head.length - 10; i -= 2) {
      if (head[i] === 'Cache-Status') {
        req![CACHE_STATUS] = head[i + 1];
        break;
      }
    }
  }
  return [...head, 'X-Request-Id', id];
}

/** A logger that can say whether `info` is on (pino's `isLevelEnabled`). */
type LevelAware = GatewayLogger & { isLevelEnabled?: (level: string) => boolean };

/**
 * What the access log calls a response, from its Cache-Status (RFC 9211): HIT, STALE (a stored
 * response past its freshness: stale-while-revalidate, stale-if-error, max-stale), MISS, PASS (not
 * looked up: an unsafe method or credentials), or `-` for the gateway's own answers.
 */
export function cacheOutcome(cacheStatus: string | undefined): string {
  if (typeof cacheStatus !== 'string') return '-';
  if (cacheStatus.includes('; hit')) return cacheStatus.includes('fwd=') ? 'STALE' : 'HIT';
  if (cacheStatus.includes('fwd=method') || cacheStatus.includes('fwd=bypass')) return 'PASS';
  return 'MISS';
}

/**
 * Returns what starts a request at the gateway: settles its id (the `x-request-id` field the origin
 * is sent, and the response's: {@link settledRequestId}), and when `logger` logs `info`, logs the request
 * once its response has finished (method, path without the query, status, ms, cache, reqId).
 * @example
 *   const begin = gatewayRequests(logger);
 *   begin(req, res);
 */
export function gatewayRequests(logger: GatewayLogger): (req: IncomingMessage, res: ServerResponse) => void {
  const l = logger as LevelAware;
  const logs = typeof l.isLevelEnabled === 'function';
  function finished(this: ServerResponse): void {
    const req = this.req as Timed;
    if (!l.isLevelEnabled!('info')) return;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    logger.info({
      method: req.method,
      path: q === -1 ? url : url.slice(0, q),
      status: this.statusCode,
      ms: performance.now() - (req[START] ?? 0),
      cache: cacheOutcome(req[CACHE_STATUS]),
      reqId: req.headers['x-request-id'],
    }, 'gateway request');
  }
  return (req, res) => {
    const h = req.headers;
    const id = requestIdOf(h['x-request-id'], h.traceparent);
    h['x-request-id'] = id;
    (req as Timed)[ID] = id;
    if (!logs) return;
    (req as Timed)[START] = performance.now();
    // 'on', not 'once': a response finishes once, and once() would wrap the listener per request.
    res.on('finish', finished);
  };
}
