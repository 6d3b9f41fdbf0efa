/**
 * @module middleware/request-id
 * The id a request is known by in logs and in its `X-Request-Id` response field: the caller's own
 * when it is well formed, else the trace-id of a W3C `traceparent`, else a fresh UUID.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

/**
 * A kept X-Request-Id: 1 to 128 characters from a set safe in a header, a log line and a URL
 * (letters, digits and `- _ . : / + = @`). Anything else (spaces, quotes, control characters, a
 * repeated field joined with ", ") is replaced, never reflected.
 */
const REQUEST_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

/**
 * W3C Trace Context §3.2: `version-traceid-parentid-flags`, lower-case hex; version `ff` is invalid
 * and a later version may append fields after a `-`. All-zero trace and parent ids are invalid.
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-|$)/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_PARENT = '0'.repeat(16);

/** The trace-id of a valid `traceparent`, or undefined. */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  if (traceparent === undefined) return undefined;
  const m = TRACEPARENT.exec(traceparent);
  if (m === null || m[1] === 'ff' || m[2] === ZERO_TRACE || m[3] === ZERO_PARENT) return undefined;
  // Version 00 has exactly four fields (55 characters).
  if (m[1] === '00' && traceparent.length !== 55) return undefined;
  return m[2];
}

/** Whether an incoming X-Request-Id is kept as it is. */
export function isValidRequestId(value: string | undefined): value is string {
  return value !== undefined && REQUEST_ID.test(value);
}

/**
 * The id of a request with these header values: a valid X-Request-Id, else a valid traceparent's
 * trace-id, else a new random UUID.
 * @example
 *   requestIdOf('abc-123', undefined) // 'abc-123'
 *   requestIdOf('bad id', undefined)  // a fresh UUID
 */
export function requestIdOf(xRequestId: string | string[] | undefined, traceparent: string | string[] | undefined): string {
  if (typeof xRequestId === 'string' && REQUEST_ID.test(xRequestId)) return xRequestId;
  if (typeof traceparent === 'string') {
    const trace = traceIdOf(traceparent);
    if (trace !== undefined) return trace;
  }
  return randomUUID();
}

/** Gives `req.id` and the `X-Request-Id` response field their value; returns the id. */
export function assignRequestId(req: Request, res: Response): string {
  const h = req.headers;
  const id = requestIdOf(h['x-request-id'], h.traceparent);
  req.id = id;
  // Added with the head, not now: see Response.setLateHeader.
  res.setLateHeader('X-Request-Id', id);
  return id;
}

/**
 * Middleware giving each request its id (`req.id`, `X-Request-Id`). The service's access log does
 * this itself (middleware/access-log); this is for apps without it.
 * @example
 *   app.use(requestId());
 */
export function requestId() {
  return (req: Request, res: Response, next: NextFunction): void => {
    assignRequestId(req, res);
    next();
  };
}
