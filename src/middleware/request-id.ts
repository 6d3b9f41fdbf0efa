/**
 * @module middleware/request-id
 * The id a request is known by in logs and in its `X-Request-Id` response field: the caller's own
 * when it is well formed, else the trace-id of a W3C `traceparent`, else a fresh one (RequestIds).
 */
import { randomBytes } from 'node:crypto';
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

/** The counter's range: always eight hex digits, and a small integer, which V8 prints cheaply. */
const FIRST_COUNT = 0x1000_0000;
const LAST_COUNT = 0x7fff_ffff;

/**
 * Fresh request ids in the form of a version-4 UUID (the form log tooling and our clients expect),
 * made for ~50 ns instead of randomUUID's ~150 ns (its entropy refills showed in profiles of every
 * request): 90 random bits drawn per process fill everything but the last eight hex digits, which
 * count. Unique within the process (a new prefix is drawn when the counter runs out) and, by the
 * random prefix, across processes and restarts. Not unpredictable: an id correlates log lines and
 * is never a secret.
 * @example
 *   const ids = new RequestIds();
 *   ids.next(); // '3f2c9a1e-8b0d-4c55-9e21-7a4b10000001'
 */
export class RequestIds {
  readonly #random: (size: number) => Buffer;
  #prefix = '';
  #count = LAST_COUNT;

  /** `random` draws the prefix's bytes; `start` is where the counter begins (tests start it near its end). */
  constructor(opts: { random?: (size: number) => Buffer; start?: number } = {}) {
    this.#random = opts.random ?? randomBytes;
    this.#newPrefix();
    if (opts.start !== undefined) this.#count = Math.min(Math.max(opts.start, FIRST_COUNT), LAST_COUNT) - 1;
  }

  next(): string {
    if (this.#count === LAST_COUNT) this.#newPrefix();
    return this.#prefix + (++this.#count).toString(16);
  }

  #newPrefix(): void {
    const hex = this.#random(12).toString('hex');
    // Version 4 in the third group's first digit, variant 10xx in the fourth's (RFC 9562 §4.1, §4.2).
    const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
    this.#prefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 24)}`;
    this.#count = FIRST_COUNT - 1;
  }
}

const ids = new RequestIds();

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
 * trace-id, else a fresh one (RequestIds).
 * @example
 *   requestIdOf('abc-123', undefined) // 'abc-123'
 *   requestIdOf('bad id', undefined)  // a fresh id in the form of a UUID
 */
export function requestIdOf(xRequestId: string | string[] | undefined, traceparent: string | string[] | undefined): string {
  if (typeof xRequestId === 'string' && REQUEST_ID.test(xRequestId)) return xRequestId;
  if (typeof traceparent === 'string') {
    const trace = traceIdOf(traceparent);
    if (trace !== undefined) return trace;
  }
  return ids.next();
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
