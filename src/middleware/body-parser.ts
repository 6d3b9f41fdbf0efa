/**
 * @module middleware/body-parser
 * The shared shape of json() and urlencoded(): match the content type, read the body bounded,
 * decode it as UTF-8, parse, and hand every failure to the error chain.
 */
import typeis from 'type-is';
import { HttpError } from '../errors/http-error.js';
import { assertUtf8, decodeUtf8, hasBody, parseByteLimit, readBody } from '../http/body.js';
import { mediaTypeOf } from '../http/mime.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { BoundedMap } from '../util/bounded-map.js';

// Set once a parser filled req.body, so a second parser (or the same one mounted twice) skips,
// as body-parser's `req._body` does. A symbol keeps the flag off the Request's public fields.
const PARSED = Symbol('roa.bodyParsed');
type Flagged = Request & { [PARSED]?: true };

/** True once json() or urlencoded() has parsed this request's body. */
export function isBodyParsed(req: Request): boolean {
  return (req as Flagged)[PARSED] === true;
}

/** Which requests a parser reads: media types (`application/json`, `+json`, `application/*`), or a predicate. */
export type TypeOption = string | readonly string[] | ((mediaType: string, req: Request) => boolean);

export interface BodyParserOptions {
  /** Largest body (bytes or `100kb`), default 100 KiB → 413. */
  limit?: number | string;
  /** Media types this parser reads, or a predicate on the bare media type. */
  type?: TypeOption;
  /** Longest time to receive the body in ms (default 30 s) → 408. */
  timeoutMs?: number;
}

type Matcher = (mediaType: string, req: Request) => boolean;

/** Compiles a `type` option once; a malformed media type fails here, at registration. */
export function typeMatcher(type: TypeOption, name: string): Matcher {
  if (typeof type === 'function') return type;
  const list = (typeof type === 'string' ? [type] : [...type]).map((t) => t.trim().toLowerCase());
  if (list.length === 0) throw new TypeError(`roa: ${name}({ type }) needs at least one media type`);
  for (const t of list) {
    if (t[0] !== '+' && !/^[\w.+-]+\/[\w.+*-]+$/.test(t) && t !== '*/*') {
      throw new TypeError(`roa: ${name}({ type }) got '${t}', not a media type like 'application/json' or '+json'`);
    }
  }
  // type-is (what body-parser matches with) decides; a parser sees few distinct media types, so
  // its answers are remembered per matcher (bounded).
  const seen = new BoundedMap<string, boolean>(64);
  return (m) => {
    let hit = seen.get(m);
    if (hit === undefined) {
      hit = typeis.is(m, list) !== false;
      seen.set(m, hit);
    }
    return hit;
  };
}

/**
 * Builds a parser middleware: `parse` turns the decoded text into `req.body`; an HttpError it
 * throws goes to the error chain as is, any other throw becomes 400 `ROA_ERR_MALFORMED_BODY`.
 */
export function bodyParser(
  name: string,
  options: BodyParserOptions,
  defaultType: TypeOption,
  parse: (text: string, req: Request) => unknown,
) {
  const limit = parseByteLimit(options.limit ?? '100kb');
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new TypeError(`roa: ${name}({ timeoutMs }) must be a positive number of milliseconds`);
  }
  const matches = typeMatcher(options.type ?? defaultType, name);
  return (req: Request, _res: Response, next: NextFunction): void => {
    if ((req as Flagged)[PARSED] === true) {
      next();
      return;
    }
    // Express 4: req.body is {} wherever a parser is mounted, even when it did not parse.
    if (req.body === undefined) req.body = {};
    // A GET or HEAD without a body (no Content-Length, no Transfer-Encoding) has nothing to read.
    if (!hasBody(req)) {
      next();
      return;
    }
    const type = mediaTypeOf(req.headers['content-type']);
    if (type === '' || !matches(type, req)) {
      next();
      return;
    }
    try {
      assertUtf8(req.headers['content-type']);
    } catch (err) {
      next(err);
      return;
    }
    readBody(req, { limit, timeoutMs }, (err, raw) => {
      if (err !== undefined) {
        next(err);
        return;
      }
      let body: unknown;
      try {
        body = raw!.length === 0 ? {} : parse(decodeUtf8(raw!), req);
      } catch (err) {
        next(err instanceof HttpError ? err : new HttpError(400, 'The body could not be parsed', { code: 'ROA_ERR_MALFORMED_BODY', cause: err }));
        return;
      }
      req.body = body;
      (req as Flagged)[PARSED] = true;
      next();
    });
  };
}
