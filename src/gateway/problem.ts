/**
 * @module gateway/problem
 * Writes the gateway's own error responses as RFC 9457 problem details.
 */
import type { ServerResponse } from 'node:http';
import { HttpError } from '../errors/http-error.js';
import { writeHead } from './exchange.js';

/** Sends `application/problem+json` (RFC 9457 §3) unless a response has already started. */
export function sendProblem(res: ServerResponse, err: HttpError, cacheStatus: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = Buffer.from(JSON.stringify({
    type: err.type ?? 'about:blank',
    title: err.message,
    status: err.status,
    detail: typeof err.extensions.detail === 'string' ? err.extensions.detail : err.message,
    code: err.code,
  }));
  writeHead(res, err.status, undefined, [
    'Content-Type', 'application/problem+json',
    'Content-Length', String(body.length),
    'Cache-Control', 'no-store',
    'Cache-Status', cacheStatus,
    'X-Cache', 'MISS',
    'Via', '1.1 roa',
    ...Object.entries(err.headers).flat(),
  ]);
  res.end(body);
}

/**
 * 502: the origin could not be reached or broke the connection. `reason` (the socket error, which
 * names the origin's address) is the operator's, for the log: the client gets a fixed detail, since
 * the internal address is none of its business.
 */
export function badGateway(reason: string): HttpError {
  return new HttpError(502, 'Bad Gateway', {
    code: 'ROA_ERR_UPSTREAM_UNREACHABLE',
    extensions: { detail: 'The origin server could not be reached' },
    cause: reason,
  });
}

/** 504: the origin did not answer in time (or `only-if-cached` found nothing, RFC 9111 §5.2.1.7). */
export function gatewayTimeout(detail: string, code = 'ROA_ERR_UPSTREAM_TIMEOUT'): HttpError {
  return new HttpError(504, 'Gateway Timeout', { code, extensions: { detail } });
}
