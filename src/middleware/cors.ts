/**
 * @module middleware/cors
 * Cross-origin access for listed origins (Fetch standard, "CORS protocol"), on the `cors` package:
 * preflights answered before the resources, credentials only with an echoed origin, and
 * `Vary: Origin` on every response so caches keep one copy per origin.
 */
import type { OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import corsPackage, { type CorsOptions, type CorsRequest } from 'cors';
import { append as appendVary } from 'vary';
import { HttpError } from '../errors/http-error.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

/** The origins `--cors-origin` allows: a set of serialised origins, or `any` (`*`, never with credentials). */
export type CorsOrigins = { any: true } | { any: false; origins: ReadonlySet<string> };

/** Methods a preflight may ask for: what the resources and the OAuth endpoints answer. */
export const CORS_METHODS: readonly string[] = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'];

/**
 * Request fields a cross-origin script may send: the three authentication schemes (Basic and Bearer
 * in Authorization, roa's hmac in Authentication with Date and Content-Digest), conditionals,
 * Idempotency-Key, request ids and the method override header.
 */
export const CORS_ALLOWED_HEADERS: readonly string[] = [
  'Authorization', 'Authentication', 'Content-Type', 'Content-Digest', 'Date', 'If-Match', 'If-None-Match',
  'If-Modified-Since', 'If-Unmodified-Since', 'Idempotency-Key', 'X-Request-Id', 'traceparent', 'X-HTTP-Method-Override',
];

/** Response fields scripts may read besides the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS: readonly string[] = [
  'ETag', 'Location', 'Content-Location', 'Link', 'X-Request-Id', 'Idempotent-Replayed', 'Allow', 'WWW-Authenticate', 'Last-Modified',
];

/** How long a browser may reuse a preflight answer (seconds; browsers cap it at 2 h or less). */
export const CORS_MAX_AGE = 600;

/**
 * Parses `--cors-origin`: comma-separated `scheme://host[:port]` origins, normalised as WHATWG URL
 * serialises them (lower-case, default port dropped), or `*` alone. Throws a one-line Error.
 * @example parseCorsOrigins('https://App.example:443, http://localhost:5173')
 */
export function parseCorsOrigins(value: string | readonly string[]): CorsOrigins {
  const list = (typeof value === 'string' ? value.split(',') : value).map((s) => s.trim()).filter((s) => s !== '');
  if (list.length === 0) throw new Error('--cors-origin needs at least one origin');
  if (list.includes('*')) {
    if (list.length > 1) throw new Error("--cors-origin: '*' (any origin, without credentials) cannot be combined with other origins");
    return { any: true };
  }
  return { any: false, origins: new Set(list.map(normaliseOrigin)) };
}

/** One origin as the `Origin` header carries it; an Error naming the value otherwise. */
export function normaliseOrigin(value: string): string {
  const bad = (why: string): Error => new Error(`--cors-origin: '${value.slice(0, 200)}' is not an origin (scheme://host[:port]): ${why}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad('unparsable');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad('the scheme must be http or https');
  if (url.username !== '' || url.password !== '') throw bad('no user information');
  // Only `scheme://host[:port]`, optionally with a bare trailing slash: a path, query or fragment means a URL was given.
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+\/?$/i.test(value)) throw bad('no path, query or fragment');
  return url.origin;
}

/**
 * CORS for `origins`: a preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered
 * 204 here, or refused 403 for an origin not listed; other requests get the CORS fields and go on,
 * a plain OPTIONS to the resource (whose `Allow` depends on the caller).
 * @example
 *   app.use(cors(parseCorsOrigins('https://app.example')))
 */
export function cors(origins: CorsOrigins): (req: Request, res: Response, next: NextFunction) => void {
  const base: CorsOptions = {
    methods: [...CORS_METHODS],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: CORS_MAX_AGE,
  };
  if (origins.any) {
    // `*` without credentials: one answer for every origin, so responses do not vary by it.
    const any = corsPackage({ ...base, origin: '*', credentials: false });
    return (req, res, next) => any(asActual(req), res, next);
  }
  // The origin is checked here, so the package only ever sees one listed origin to echo
  // (it would otherwise send Access-Control-Allow-Credentials to refused origins too).
  const echo = corsPackage((req: CorsRequest, cb) => cb(null, { ...base, origin: req.headers.origin, credentials: true }));
  const allowed = origins.origins;
  return (req, res, next) => {
    varyOnOrigin(res);
    const origin = req.headers.origin;
    const preflight = isPreflight(req);
    if (origin === undefined || !allowed.has(origin)) {
      if (preflight) next(new HttpError(403, 'This origin may not make cross-origin requests to this service', { code: 'ROA_ERR_CORS_ORIGIN' }));
      else next();
      return;
    }
    echo(preflight ? req : asActual(req), res, next);
  };
}

/** Fetch §3.2.2: a CORS-preflight request is an OPTIONS with Origin and Access-Control-Request-Method. */
function isPreflight(req: Request): boolean {
  return req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined && req.headers.origin !== undefined;
}

/** The package treats every OPTIONS as a preflight; a plain one is an actual request. */
function asActual(req: Request): CorsRequest {
  return isPreflight(req) ? req : { method: req.method === 'OPTIONS' ? 'GET' : req.method, headers: req.headers };
}

type Head = OutgoingHttpHeaders | OutgoingHttpHeader[];
type WriteHead = (this: Response, status: number, reason?: string | Head, headers?: Head) => Response;

/**
 * Adds `Origin` to the Vary of the head, whatever shape it is written in: handlers replace Vary
 * (`Vary: Accept` in resources/representation), so it is added when the head leaves.
 */
function varyOnOrigin(res: Response): void {
  const writeHead = res.writeHead as unknown as WriteHead;
  res.writeHead = function (this: Response, status: number, reason?: string | Head, headers?: Head): Response {
    let fields = typeof reason === 'string' ? headers : reason;
    fields = withVaryOrigin(this, fields);
    return typeof reason === 'string' ? writeHead.call(this, status, reason, fields) : writeHead.call(this, status, fields);
  } as unknown as Response['writeHead'];
}

function withVaryOrigin(res: Response, fields: Head | undefined): Head | undefined {
  if (Array.isArray(fields)) {
    const list = [...fields];
    for (let i = 0; i < list.length; i += 2) {
      if (String(list[i]).toLowerCase() === 'vary') {
        list[i + 1] = appendVary(String(list[i + 1]), 'Origin');
        return list;
      }
    }
    const own = res.getHeader('vary');
    res.removeHeader('vary');
    list.push('Vary', appendVary(own === undefined ? '' : String(own), 'Origin'));
    return list;
  }
  if (fields !== undefined) {
    const key = Object.keys(fields).find((k) => k.toLowerCase() === 'vary');
    if (key !== undefined) return { ...fields, [key]: appendVary(String(fields[key]), 'Origin') };
  }
  const own = res.getHeader('vary');
  res.setHeader('Vary', appendVary(own === undefined ? '' : String(own), 'Origin'));
  return fields;
}
