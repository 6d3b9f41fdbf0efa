/**
 * @module middleware/body-parser
 * The shared shape of json() and urlencoded(): match the content type, read the body bounded,
 * parse, hand every failure to the error chain.
 */
import { HttpError } from '../errors/http-error.js';
import { assertUtf8, parseByteLimit, readRawBody } from '../http/body.js';
import { mediaTypeOf } from '../http/mime.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

const PARSED = Symbol('roa.bodyParsed');

export interface BodyParserOptions {
  /** Largest body (bytes or `100kb`), default 100 KiB → 413. */
  limit?: number | string;
  /** Media types this parser reads, or a predicate. */
  type?: string | string[] | ((mediaType: string) => boolean);
}

export function bodyParser(
  options: BodyParserOptions,
  defaultType: (mediaType: string) => boolean,
  parse: (text: string, req: Request) => unknown,
) {
  const limit = parseByteLimit(options.limit ?? '100kb');
  const matches = typeof options.type === 'function'
    ? options.type
    : options.type === undefined
      ? defaultType
      : ((types: string[]) => (m: string) => types.includes(m))(([] as string[]).concat(options.type).map((t) => t.toLowerCase()));
  return (req: Request, _res: Response, next: NextFunction): void => {
    const r = req as Request & { [PARSED]?: boolean };
    if (r[PARSED]) {
      next();
      return;
    }
    // Express 4: req.body is {} when no parser claimed the request.
    if (req.body === undefined) req.body = {};
    const type = mediaTypeOf(req.headers['content-type']);
    if (type === '' || !matches(type)) {
      next();
      return;
    }
    try {
      assertUtf8(req.headers['content-type']);
    } catch (err) {
      next(err);
      return;
    }
    readRawBody(req, { limit }).then(
      (raw) => {
        r[PARSED] = true;
        try {
          req.body = raw.length === 0 ? {} : parse(raw.toString('utf8'), req);
        } catch (err) {
          next(err instanceof HttpError ? err : new HttpError(400, (err as Error).message, { code: 'ROA_ERR_MALFORMED_BODY' }));
          return;
        }
        next();
      },
      next,
    );
  };
}
