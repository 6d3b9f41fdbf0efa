/**
 * @module errors/problem
 * RFC 9457 problem details: JSON (`application/problem+json`) or, when the client prefers XML,
 * the XML form of Appendix B (`application/problem+xml`).
 */
import { STATUS_CODES } from 'node:http';
import { negotiate } from '../http/accepts.js';
import { escapeXml } from '../http/xml-text.js';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { HttpError, statusOf } from './http-error.js';

export { escapeXml };

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

export interface ProblemOptions {
  /** `production` never shows 5xx details or stacks; defaults to NODE_ENV, else development. */
  env?: string;
  /** Add the stack as a `stack` member (never in production). Default false. */
  stack?: boolean;
}

/** Where roa's own problem types live: `https://roa.dev/problems/body-too-large`. */
export const PROBLEM_TYPE_BASE = 'https://roa.dev/problems/';

/** One field's failure in a validation problem (`errors` member). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * A 422 whose problem carries `errors: [{ field, message }]`.
 * @example
 *   throw validationError([{ field: 'title', message: 'is required' }])
 */
export function validationError(errors: FieldError[], message = 'The request body is not valid'): HttpError {
  return new HttpError(422, message, { code: 'ROA_ERR_VALIDATION', extensions: { errors } });
}

export function isProduction(env: string | undefined): boolean {
  return (env ?? process.env.NODE_ENV ?? 'development') === 'production';
}

/**
 * The message a client may read: an exposed 4xx error's message; in production a 5xx (or an
 * unexposed error) gets only the reason phrase. In development every message is shown.
 */
export function clientMessage(err: unknown, status: number, production: boolean): string {
  const phrase = STATUS_CODES[status] ?? 'Error';
  // Error instances, http-errors-like plain objects (`{ status, message }`) and thrown strings.
  const own = err !== null && typeof err === 'object' ? (err as { message?: unknown }).message : err;
  const message = typeof own === 'string' && own !== '' ? own : phrase;
  if (!production) return message;
  return status < 500 && exposed(err, status) ? message : phrase;
}

function exposed(err: unknown, status: number): boolean {
  const flag = err !== null && typeof err === 'object' ? (err as { expose?: unknown }).expose : undefined;
  return typeof flag === 'boolean' ? flag : status < 500;
}

/** The headers an error asks for (`Allow`, `WWW-Authenticate`, `Retry-After`), string values only. */
export function errorHeaders(err: unknown): Record<string, string> {
  const headers = err !== null && typeof err === 'object' ? (err as { headers?: unknown }).headers : undefined;
  const out: Record<string, string> = {};
  if (headers === null || typeof headers !== 'object') return out;
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' || typeof value === 'number') out[name] = String(value);
  }
  return out;
}

/**
 * The problem document for an error. `type` is stable per code: a roa code of its own gets
 * `PROBLEM_TYPE_BASE + slug` (`ROA_ERR_BODY_TOO_LARGE` → `.../body-too-large`); an error that
 * means no more than its status (the status's default code, or not an HttpError) gets
 * `about:blank` (RFC 9457 §4.2.1). HttpErrors also carry their `code` as a member.
 * @example
 *   problemFromError(new HttpError(404)) // { type: 'about:blank', title: 'Not Found', status: 404, ... }
 */
export function problemFromError(err: unknown, options: ProblemOptions = {}): Problem {
  const production = isProduction(options.env);
  const status = statusOf(err);
  const http = err instanceof HttpError ? err : undefined;
  const problem: Problem = { type: http?.type ?? typeFor(http, status), title: STATUS_CODES[status] ?? 'Error', status };
  const hidden = production && status >= 500;
  if (!hidden && (exposed(err, status) || !production)) problem.detail = clientMessage(err, status, false);
  if (http) problem.code = http.code;
  // Extensions are built for clients, but in production a 5xx keeps everything but its status.
  if (http && !hidden) {
    for (const [k, v] of Object.entries(http.extensions)) {
      // An explicit `detail` or `instance` wins over the message; the other members are fixed.
      if (k === 'detail' || k === 'instance') {
        if (typeof v === 'string') problem[k] = v;
      } else if (!(k in problem)) {
        problem[k] = v;
      }
    }
  }
  if (options.stack && !production && err instanceof Error && err.stack) problem.stack = err.stack;
  return problem;
}

const defaultCodes = new Map<number, string>();

function typeFor(http: HttpError | undefined, status: number): string {
  if (!http) return 'about:blank';
  let plain = defaultCodes.get(status);
  if (plain === undefined) defaultCodes.set(status, (plain = new HttpError(status).code));
  if (http.code === plain) return 'about:blank';
  return PROBLEM_TYPE_BASE + http.code.replace(/^ROA_ERR_/, '').toLowerCase().replace(/_/g, '-');
}

// An NCName without a colon; names starting with `xml` are reserved (XML 1.0 §2.3).
const XML_NAME = /^(?!xml)[A-Za-z_][\w.-]*$/i;

function xmlMember(name: string, value: unknown): string {
  if (value === undefined || value === null || typeof value === 'function') return '';
  // Appendix B: array items are `i` elements.
  if (Array.isArray(value)) return `<${name}>${value.map((v) => xmlMember('i', v)).join('')}</${name}>`;
  if (typeof value === 'object') {
    const inner = Object.entries(value).map(([k, v]) => (XML_NAME.test(k) ? xmlMember(k, v) : '')).join('');
    return `<${name}>${inner}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

/**
 * RFC 9457 Appendix B: the problem as XML in the `urn:ietf:rfc:7807` namespace. Members whose
 * names are not XML names are left out (RFC 9457 §3.2 asks extension names to be such names).
 */
export function problemToXml(problem: Problem): string {
  const members = Object.entries(problem).map(([k, v]) => (XML_NAME.test(k) ? xmlMember(k, v) : '')).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<problem xmlns="urn:ietf:rfc:7807">${members}</problem>\n`;
}

// Headers of the representation the handler was about to send; they do not describe an error.
const REPRESENTATION_HEADERS = ['Content-Encoding', 'Content-Language', 'Content-Location', 'Content-Range', 'Content-Disposition', 'ETag', 'Last-Modified', 'Expires', 'Cache-Control'];

/**
 * Readies `res` for an error answer: status, the error's headers and no leftover representation
 * headers. A handler may already have set `public, max-age=...` for the success case; it is
 * removed so a cache never keeps the error under it. Errors carry no Cache-Control of their own
 * (an error may set one, as OAuth's `no-store` per RFC 6749 §5.1).
 */
export function prepareErrorResponse(res: Response, status: number, err: unknown): void {
  res.statusCode = status;
  for (const name of REPRESENTATION_HEADERS) res.removeHeader(name);
  for (const [name, value] of Object.entries(errorHeaders(err))) res.setHeader(name, value);
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

const OFFERS = ['application/problem+json', 'application/json', 'application/problem+xml', 'application/xml'];

/**
 * Writes an error as a problem response: JSON unless the client's Accept ranks XML above JSON
 * (an Accept naming neither still gets JSON: an error is never answered with 406). The body is
 * left out for HEAD. When headers are already sent the answer cannot change, so the socket is
 * destroyed and the client sees a truncated response rather than a seemingly complete one.
 * @example
 *   app.use((err, req, res, next) => sendProblem(req, res, err, { env: 'production' }))
 */
export function sendProblem(req: Request, res: Response, err: unknown, options: ProblemOptions = {}): void {
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  const problem = problemFromError(err, options);
  const xml = negotiate(req.headers.accept, OFFERS)?.endsWith('xml') === true;
  const body = xml ? problemToXml(problem) : JSON.stringify(problem);
  prepareErrorResponse(res, problem.status, err);
  res.vary('Accept');
  res.setHeader('Content-Type', xml ? 'application/problem+xml; charset=utf-8' : 'application/problem+json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}
