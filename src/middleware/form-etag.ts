/**
 * @module middleware/form-etag
 * formEtag(): an HTML form's `_etag` field as `If-Match`. A form cannot set headers, so the replace
 * and delete forms of the browsable API carry the ETag their page was rendered from in a hidden
 * field; the write then is conditional on it exactly as an API client's (RFC 9110 §13.1.1), and
 * editing a stale copy answers 412 instead of overwriting someone else's change.
 */
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

/**
 * For a POST turned into PUT or DELETE by methodOverride() whose body carries `_etag`, sets
 * `If-Match` to it (an `If-Match` header, when sent, wins) and removes the field from `req.body`:
 * it is transport, not data. Mount it right after methodOverride().
 * @example
 *   app.use(urlencoded(), methodOverride(), formEtag())
 */
export function formEtag(field = '_etag') {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const body = req.body as Record<string, unknown> | undefined;
    if (req.originalMethod === 'POST' && req.method !== 'POST' && body !== null && typeof body === 'object' && Object.prototype.hasOwnProperty.call(body, field)) {
      const value = body[field];
      delete body[field];
      // A repeated field parses to an array: the first, as methodOverride takes the first `_method`.
      const tag = Array.isArray(value) ? value[0] : value;
      if (typeof tag === 'string' && req.headers['if-match'] === undefined) req.headers['if-match'] = tag;
    }
    next();
  };
}
