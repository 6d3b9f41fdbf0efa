/**
 * @module middleware/method-override
 * Lets HTML forms and limited clients express PUT, PATCH and DELETE through POST.
 */
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

export interface MethodOverrideOptions {
  /** Header read for the method (default `X-HTTP-Method-Override`); `false` ignores headers. */
  header?: string | false;
  /** Field of the parsed body read for the method (default `_method`); `false` ignores bodies. */
  bodyField?: string | false;
}

// Only methods a form cannot send. Turning POST into GET or HEAD would let a cross-site form reach
// handlers that assume safe methods (CSRF defences, caches); unknown methods have no handler.
const ALLOWED = new Set(['PUT', 'PATCH', 'DELETE']);

// RFC 9110 §5.1 field-name token.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Changes `req.method` for a POST that names PUT, PATCH or DELETE (any case), in the body field
 * (checked first: the HTML form case) or the header, keeping `req.originalMethod = 'POST'`.
 * Mount it after the body parsers, since it reads the parsed body, and before the routes.
 *
 * - Any other method is ignored and the request stays a POST, as the method-override package
 *   does: a 400 would break forms that happen to carry a `_method` field for other reasons.
 * - An honoured `_method` is removed from `req.body`: the body of a PUT is the new representation
 *   and the field is transport, not data (Express's method-override leaves it; handlers that
 *   store the body as sent would otherwise store `_method` too).
 * - A header override adds `Vary: X-HTTP-Method-Override`: the answer depends on it.
 * @example
 *   app.use(urlencoded({ extended: true }), methodOverride())
 */
export function methodOverride(options: MethodOverrideOptions = {}) {
  const header = options.header === undefined ? 'X-HTTP-Method-Override' : options.header;
  const field = options.bodyField === undefined ? '_method' : options.bodyField;
  if (header !== false && !TOKEN.test(header)) {
    throw new TypeError(`roa: methodOverride({ header }) got '${header}', not a header name`);
  }
  if (field !== false && (typeof field !== 'string' || field === '')) {
    throw new TypeError('roa: methodOverride({ bodyField }) must be a non-empty string or false');
  }
  const headerKey = header === false ? undefined : header.toLowerCase();
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.originalMethod === undefined) req.originalMethod = req.method;
    // Only a POST that has not been overridden already (the middleware may be mounted twice).
    if (req.method !== 'POST' || req.originalMethod !== 'POST') {
      next();
      return;
    }
    const fromBody = field === false ? undefined : bodyMethod(req.body, field);
    if (fromBody !== undefined) {
      req.method = fromBody;
      delete (req.body as Record<string, unknown>)[field as string];
    } else if (headerKey !== undefined) {
      res.vary(header as string);
      const value = req.headers[headerKey];
      // Several values (repeated header or a list): the first wins, as in method-override.
      const first = (Array.isArray(value) ? value[0] : value)?.split(',')[0];
      const method = allowed(first);
      if (method !== undefined) req.method = method;
    }
    next();
  };
}

function bodyMethod(body: unknown, field: string): string | undefined {
  if (body === null || typeof body !== 'object' || !Object.prototype.hasOwnProperty.call(body, field)) return undefined;
  const value = (body as Record<string, unknown>)[field];
  // `_method=PUT&_method=PUT` parses to an array; take its first, like a repeated header.
  return allowed(Array.isArray(value) ? value[0] : value);
}

function allowed(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const method = value.trim().toUpperCase();
  return ALLOWED.has(method) ? method : undefined;
}
