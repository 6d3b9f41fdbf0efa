/**
 * @module errors/http-error
 * The one error type handlers throw (or pass to `next`) to answer with a status.
 */
import { STATUS_CODES } from 'node:http';

export interface HttpErrorOptions {
  /** Stable machine-readable code, e.g. `ROA_ERR_NOT_FOUND`. */
  code?: string;
  /** Whether `message` may be shown to the client. Defaults to true for 4xx, false for 5xx. */
  expose?: boolean;
  /** Extra response headers (e.g. `Allow`, `WWW-Authenticate`). */
  headers?: Record<string, string>;
  /** RFC 9457 `type` URI. */
  type?: string;
  /** Extra RFC 9457 members (e.g. `errors` for validation failures). */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * An error that carries an HTTP status.
 * @example
 *   throw new HttpError(404, 'No such article')
 */
export class HttpError extends Error {
  readonly status: number;
  readonly statusCode: number;
  readonly code: string;
  readonly expose: boolean;
  readonly headers: Record<string, string>;
  readonly type: string | undefined;
  readonly extensions: Record<string, unknown>;

  constructor(status: number, message?: string, options: HttpErrorOptions = {}) {
    const valid = Number.isInteger(status) && status >= 400 && status <= 599;
    const code = valid ? status : 500;
    super(message ?? STATUS_CODES[code] ?? 'Error', options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HttpError';
    this.status = code;
    this.statusCode = code;
    this.code = options.code ?? defaultCode(code);
    this.expose = options.expose ?? code < 500;
    this.headers = options.headers ?? {};
    this.type = options.type;
    this.extensions = options.extensions ?? {};
  }
}

function defaultCode(status: number): string {
  const text = STATUS_CODES[status] ?? 'Error';
  return 'ROA_ERR_' + text.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_|_$/g, '');
}

/** 405 for a method the target does not support, with the methods it does (RFC 9110 §15.5.6). */
export function methodNotAllowed(method: string | undefined, allow: string): HttpError {
  return new HttpError(405, `${method} is not supported here`, { code: 'ROA_ERR_METHOD_NOT_ALLOWED', headers: { Allow: allow } });
}

/** The 4xx/5xx status an error asks for, else 500 (as Express does with err.status / err.statusCode). */
export function statusOf(err: unknown): number {
  if (err !== null && typeof err === 'object') {
    const e = err as { status?: unknown; statusCode?: unknown };
    const s = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : undefined;
    if (s !== undefined && Number.isInteger(s) && s >= 400 && s <= 599) return s;
  }
  return 500;
}
