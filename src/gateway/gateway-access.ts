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

type Timed = IncomingMessage & { [START]?: number };

/** A logger that can say whether `info` is on (pino's `isLevelEnabled`). */
type LevelAware = GatewayLogger & { isLevelEnabled?: (level: string) => boolean };

/**
 * What the access log calls a response, from its Cache-Status (RFC 9211): HIT, STALE (a stored
 * response past its freshness: stale-while-revalidate, stale-if-error, max-stale), MISS, PASS (not
 * looked up: an unsafe method or credentials), or `-` for the gateway's own answers.
 */
export function cacheOutcome(cacheStatus: unknown): string {
  if (typeof cacheStatus !== 'string') return '-';
  if (cacheStatus.includes('; hit')) return cacheStatus.includes('fwd=') ? 'STALE' : 'HIT';
  if (cacheStatus.includes('fwd=method') || cacheStatus.includes('fwd=bypass')) return 'PASS';
  return 'MISS';
}

/**
 * Returns what starts a request at the gateway: sets its id on the request (as the `x-request-id`
 * field the origin is sent) and on the response, and when `logger` logs `info`, logs the request
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
      cache: cacheOutcome(this.getHeader('cache-status')),
      reqId: req.headers['x-request-id'],
    }, 'gateway request');
  }
  return (req, res) => {
    const h = req.headers;
    const id = requestIdOf(h['x-request-id'], h.traceparent);
    h['x-request-id'] = id;
    res.setHeader('X-Request-Id', id);
    if (!logs) return;
    (req as Timed)[START] = performance.now();
    res.once('finish', finished);
  };
}
