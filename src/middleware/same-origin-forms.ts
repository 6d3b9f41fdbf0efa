/**
 * @module middleware/same-origin-forms
 * sameOriginForms(): refuses cross-site form writes (CSRF). A browser that once answered a Basic
 * challenge attaches those credentials to every request to the origin, including a form another
 * site makes it post; `_method=DELETE` in that form then deletes. Only bodies a page may send to
 * another origin without a CORS preflight can arrive this way (Fetch §2.2.2, CORS-safelisted
 * request-header `Content-Type`): those are checked, others pass untouched.
 */
import { parse as parseContentType } from 'content-type';
import { HttpError } from '../errors/http-error.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { publicOrigin } from '../http/public-origin.js';
import { SAFE_METHODS } from '../http/safe-methods.js';

export interface SameOriginFormsOptions {
  /**
   * Origins besides the request's own (`scheme://Host`) that count as the service's: the public
   * origin when a TLS front end or a proxy stands before it (`https://articles.example`).
   */
  origins?: readonly string[];
}

/** The Content-Types a cross-origin page may send without a preflight (Fetch's safelist). */
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

/**
 * Refuses, with a 403 problem and before the body is read, a write whose body a cross-site page
 * could have sent (urlencoded, multipart, text/plain, or no `Content-Type`: a no-cors `fetch` of a
 * Blob) unless the browser says it came from the service's own origin:
 *
 * - `Origin` present: it must equal the request's own public origin (its scheme and host, as trusted
 *   proxies report them: http/public-origin) or one of
 *   `options.origins`; `Origin: null` (sandboxed frames, redirects, `data:` pages) is cross-site.
 * - `Origin` absent, `Sec-Fetch-Site` present: it must be `same-origin`.
 * - Neither: not a browser (curl, HTTP libraries), which has no ambient credentials to abuse; the
 *   request passes.
 *
 * Mount it before `urlencoded()` and `methodOverride()`, so a refused form is neither parsed nor
 * turned into a PUT or DELETE.
 * @example
 *   app.use(sameOriginForms({ origins: ['https://articles.example'] }), urlencoded(), methodOverride())
 */
export function sameOriginForms(options: SameOriginFormsOptions = {}) {
  const configured = new Set((options.origins ?? []).map(configuredOrigin));
  return (req: Request, _res: Response, next: NextFunction): void => {
    const method = req.originalMethod ?? req.method ?? 'GET';
    if (SAFE_METHODS.has(method) || !simpleBody(req.headers['content-type']) || fromOwnOrigin(req, configured)) {
      next();
      return;
    }
    next(new HttpError(403, 'A form from another origin may not write here', { code: 'ROA_ERR_CROSS_ORIGIN_FORM' }));
  };
}

function configuredOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`roa: sameOriginForms({ origins }) got '${value}', not an http(s) origin`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`roa: sameOriginForms({ origins }) got '${value}', not an http(s) origin`);
  }
  return url.origin;
}

/** True when a browser could have sent this Content-Type cross-origin without a preflight. */
function simpleBody(header: string | undefined): boolean {
  if (header === undefined) return true;
  try {
    return SIMPLE_TYPES.has(parseContentType(header).type);
  } catch {
    // Unparsable: a browser would have preflighted it, but refusing a cross-site one costs nothing.
    return true;
  }
}

function fromOwnOrigin(req: Request, configured: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const claimed = serialisedOrigin(origin);
    return claimed !== undefined && (configured.has(claimed) || claimed === serialisedOrigin(publicOrigin(req)));
  }
  const site = req.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin';
}

/** The ASCII serialisation of an http(s) origin (lower-case, default port dropped), or undefined. */
function serialisedOrigin(value: string): string | undefined {
  if (value === 'null') return undefined;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== 'null' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
