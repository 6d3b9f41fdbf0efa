/**
 * @module middleware/method-override
 * Lets HTML forms and limited clients express PUT, PATCH and DELETE through POST.
 */
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

export interface MethodOverrideOptions {
  /** Header read for the method (default `X-HTTP-Method-Override`). */
  header?: string;
  /** Field of the parsed body read for the method (default `_method`). */
  bodyField?: string;
}

// Only methods a form cannot send; turning POST into GET or into an unknown method would let a
// form bypass safe-method assumptions (CSRF defences, caches).
const ALLOWED = new Set(['PUT', 'PATCH', 'DELETE']);

/**
 * Changes `req.method` for POST requests that name PUT, PATCH or DELETE, keeping
 * `req.originalMethod = 'POST'`. Mount it after the body parsers: it reads the parsed body.
 * An unlisted method is ignored (the request stays a POST), as the method-override package does.
 * @example
 *   app.use(urlencoded({ extended: true }), methodOverride())
 */
export function methodOverride(options: MethodOverrideOptions = {}) {
  const header = (options.header ?? 'X-HTTP-Method-Override').toLowerCase();
  const field = options.bodyField ?? '_method';
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (req.originalMethod === undefined) req.originalMethod = req.method;
    if (req.originalMethod !== 'POST') {
      next();
      return;
    }
    let wanted: unknown;
    const body = req.body;
    if (body !== null && typeof body === 'object' && Object.prototype.hasOwnProperty.call(body, field)) {
      wanted = (body as Record<string, unknown>)[field];
    }
    if (typeof wanted !== 'string') {
      const h = req.headers[header];
      wanted = Array.isArray(h) ? h[0] : h;
    }
    if (typeof wanted === 'string') {
      const method = wanted.trim().toUpperCase();
      if (ALLOWED.has(method)) req.method = method;
    }
    next();
  };
}
