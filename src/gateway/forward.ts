/**
 * @module gateway/forward
 * Passing a request through to the origin and relaying its answer, for what the cache does not answer.
 */
import type { IncomingMessage, InformationEvent, ServerResponse } from 'node:http';
import { withNormalisedCoding } from './content-coding.js';
import { clientGone, sendInterim, writeHead } from './exchange.js';
import type { GatewayContext } from './gateway-context.js';
import { addVia, collectFields, fieldMap, passesToClient, type Field } from './headers.js';
import { invalidate } from './invalidation.js';
import { badGateway, gatewayTimeout, sendProblem } from './problem.js';
import { requestFraming } from './request-framing.js';
import { upstreamHeaders } from './upstream-headers.js';
import { UpstreamError } from './upstream.js';

/**
 * Passes a request through unchanged (any method, with its body); never stores. `invalidates`:
 * an unsafe method, whose 2xx/3xx drops what is stored for its target (RFC 9111 §4.4).
 */
export function forward(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, cacheStatus: string, invalidates: boolean): void {
  ctx.counters.misses++;
  // GET and HEAD get here without content: scanRequest refused any.
  const framing = req.method === 'GET' || req.method === 'HEAD' ? undefined : requestFraming(req);
  const headers = upstreamHeaders(ctx, req, undefined, framing);
  ctx.upstream.send({
    method: req.method!,
    path: req.url!,
    headers: req.method === 'HEAD' ? withNormalisedCoding(req, headers) : headers,
    body: framing === undefined ? undefined : req,
    onInformation: interim(res),
  }).then((up) => {
    const status = up.statusCode ?? 502;
    const fields = collectFields(up.rawHeaders);
    const map = fieldMap(fields);
    if (invalidates && status >= 200 && status < 400) invalidate(ctx, req, map);
    if (clientGone(res)) {
      // The client left before the answer ('close' has fired already): drop the transfer, which
      // would otherwise stall half-read on the upstream connection until it timed out.
      up.destroy();
      return;
    }
    writeHead(res, status, up.statusMessage, outgoing(fields, map.via, cacheStatus));
    up.pipe(res);
    up.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
  }, (err: unknown) => {
    req.resume();
    upstreamFailure(ctx, res, err);
  });
}

/** Answers a request the origin failed: 504 problem on a timeout, else 502. */
export function upstreamFailure(ctx: GatewayContext, res: ServerResponse, err: unknown): void {
  const e = err instanceof UpstreamError ? err : new UpstreamError('unreachable', String(err));
  ctx.logger.warn({ err: e.message, kind: e.kind }, 'gateway: upstream failure');
  sendProblem(res, e.kind === 'timeout' ? gatewayTimeout(e.message) : badGateway(e.message), 'roa; fwd=miss; detail=origin-error');
}

/**
 * Response fields for the client: the origin's, plus this hop's Via, X-Cache and Cache-Status (RFC 9211).
 * The origin's X-Request-Id is left out: the response carries the id this hop settled (gateway/gateway-access).
 */
export function outgoing(fields: readonly Field[], via: string | undefined, cacheStatus: string): string[] {
  const out: string[] = [];
  for (const f of fields) if (passesToClient(f) && f.lower !== 'x-request-id') out.push(f.name, f.value);
  out.push('Via', addVia(via, 'roa'), 'X-Cache', 'MISS', 'Cache-Status', cacheStatus);
  return out;
}

/** Forwards the origin's 1xx interim responses to the client (gateway/exchange `sendInterim`). */
export function interim(res: ServerResponse): (info: InformationEvent) => void {
  return (info) => sendInterim(res, info);
}
