/**
 * @module middleware/multipart-form
 * multipartForm(): `req.body` from an HTML form sent as `multipart/form-data` (text fields), so
 * methodOverride() sees its `_method` as it sees a urlencoded form's.
 */
import { mediaTypeOf } from '../http/mime.js';
import { hasBody, readRawBody } from '../http/body.js';
import { parseMultipartForm } from '../http/multipart-form.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

export interface MultipartFormOptions {
  /** Largest body in bytes (default 100 KiB) → 413. */
  limit?: number;
}

/**
 * Parses `multipart/form-data` bodies of POSTs into `req.body` (http/multipart-form: text fields,
 * nested like urlencoded). The raw bytes stay on the request, so a resource reads them again
 * without a second read. Other requests pass untouched. Mount it after sameOriginForms(), so a
 * cross-site form is refused before it is read, and before methodOverride().
 * @example
 *   app.use(sameOriginForms(), urlencoded(), multipartForm(), methodOverride())
 */
export function multipartForm(options: MultipartFormOptions = {}) {
  const limit = options.limit ?? 100 * 1024;
  return (req: Request, _res: Response, next: NextFunction): void => {
    const type = req.headers['content-type'];
    if (req.method !== 'POST' || type === undefined || !hasBody(req) || mediaTypeOf(type) !== 'multipart/form-data') {
      next();
      return;
    }
    readRawBody(req, { limit })
      .then((raw) => parseMultipartForm(raw, type))
      .then((body) => {
        req.body = body;
        next();
      }, next);
  };
}
