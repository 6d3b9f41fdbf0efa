/**
 * @module express/body-parsers
 * `express.json`, `express.urlencoded`, `express.raw`, `express.text`: body-parser's middleware, so
 * every option (`type`, `verify`, `inflate`, `strict`, `reviver`, `limit`, `parameterLimit`,
 * `extended`, `defaultCharset`) and every error (`err.type`, `err.status`, `err.body`) is Express 4's.
 * `express.json()` with no options but `limit`/`strict` reads the common request (plain
 * `application/json`, UTF-8, not content-coded) with roa's body reader (http/body) instead; whatever
 * that path cannot parse goes through body-parser after all, from the bytes already read, so
 * errors stay body-parser's own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AsyncResource } from 'node:async_hooks';
import { PassThrough } from 'node:stream';
import bodyParser from 'body-parser';
import createError from 'http-errors';
import { HttpError } from '../errors/http-error.js';
import { parseByteLimit, readBody } from '../http/body.js';
import type { Request } from '../http/request.js';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
type Parsed = IncomingMessage & { body?: unknown; _body?: boolean };

export const urlencoded = bodyParser.urlencoded;
export const raw = bodyParser.raw;
export const text = bodyParser.text;

/** The options roa's reader honours exactly as body-parser does; any other sends every request to body-parser. */
const FAST_OPTIONS = new Set(['limit', 'strict']);

/** Content-Type values the fast path takes (compared lower-cased): others may name charsets or suffixes. */
const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/** JSON's insignificant whitespace (RFC 8259 §2) before the first token. */
const FIRST_TOKEN = /^[ \t\n\r]*([^ \t\n\r])/;

/**
 * `express.json(options)`: JSON bodies into `req.body`, as body-parser's `json()` does.
 * @example
 *   app.post('/echo', express.json({ limit: '10kb' }), (req, res) => res.json(req.body))
 */
export function json(options?: bodyParser.OptionsJson): Middleware {
  const parser = bodyParser.json(options) as Middleware;
  if (options !== undefined && Object.keys(options).some((k) => !FAST_OPTIONS.has(k))) return parser;
  const limit = options?.limit ?? '100kb';
  // Parsed once here, not by every read; a limit roa's reader does not take leaves body-parser to judge it.
  const byteLimit = byteLimitOrUndefined(limit);
  if (byteLimit === undefined) return parser;
  const strict = options?.strict !== false;
  return function jsonParser(req, res, next) {
    const r = req as Parsed;
    const type = req.headers['content-type'];
    if (r._body || !req.readable || type === undefined || !PLAIN_JSON.has(type.toLowerCase()) || req.headers['content-encoding'] !== undefined
      || (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)) {
      parser(req, res, next);
      return;
    }
    r.body ??= {};
    // The rest of the chain runs in the caller's async context (AsyncLocalStorage), not the socket's.
    readBody(req as Request, { limit: byteLimit }, inCallerContext((err: unknown, bytes?: Buffer) => {
      if (err !== undefined) {
        next(asBodyParserError(err, req, limit));
        return;
      }
      const value = parseJson(bytes!, strict);
      if (value === UNPARSED) {
        replay(parser, req, res, bytes!, next);
        return;
      }
      r.body = value;
      r._body = true;
      next();
    }));
  };
}

function byteLimitOrUndefined(limit: number | string): number | undefined {
  try {
    return parseByteLimit(limit);
  } catch {
    return undefined;
  }
}

/**
 * `fn`, run in the async context current now (AsyncLocalStorage), as `AsyncResource.bind(fn)` would;
 * node 20's bind also defines a deprecated getter per call, which cost more than the parse (F1, bench).
 */
function inCallerContext(fn: (err: unknown, bytes?: Buffer) => void): (err: unknown, bytes?: Buffer) => void {
  const resource = new AsyncResource('roa.express.json');
  return (err, bytes) => resource.runInAsyncScope(fn, undefined, err, bytes);
}

const UNPARSED = Symbol('unparsed');

/** The value, or UNPARSED for anything body-parser would refuse (it then says why, in its words). */
function parseJson(bytes: Buffer, strict: boolean): unknown {
  let textBody = bytes.toString('utf8');
  // A BOM is dropped, as body-parser's decoder (iconv-lite) does.
  if (textBody.charCodeAt(0) === 0xfeff) textBody = textBody.slice(1);
  if (textBody.length === 0) return {};
  if (strict) {
    const c = textBody.charCodeAt(0);
    const first = c === 123 /* { */ || c === 91 /* [ */ ? textBody[0] : FIRST_TOKEN.exec(textBody)?.[1];
    if (first !== '{' && first !== '[') return UNPARSED;
  }
  try {
    return JSON.parse(textBody) as unknown;
  } catch {
    return UNPARSED;
  }
}

/**
 * Runs body-parser on bytes already read: a stand-in stream with the request's headers carries
 * them, and what body-parser sets on it (`body`, `_body`) is copied back.
 */
function replay(parser: Middleware, req: IncomingMessage, res: ServerResponse, bytes: Buffer, next: (err?: unknown) => void): void {
  const standIn = new PassThrough() as PassThrough & Parsed & { complete: boolean };
  standIn.headers = req.headers;
  standIn.complete = true;
  standIn.body = (req as Parsed).body;
  standIn.end(bytes);
  parser(standIn, res, (err) => {
    (req as Parsed).body = standIn.body;
    if (standIn._body) (req as Parsed)._body = true;
    next(err);
  });
}

/** roa's read errors as body-parser reports them (`type`, status, message). */
function asBodyParserError(err: unknown, req: IncomingMessage, limit: number | string): unknown {
  if (!(err instanceof HttpError)) return err;
  const declared = req.headers['content-length'];
  const length = declared === undefined ? undefined : Number(declared);
  switch (err.code) {
    case 'ROA_ERR_BODY_TOO_LARGE':
      return createError(413, 'request entity too large', { expected: length, length, limit: err.extensions?.limit ?? limit, type: 'entity.too.large' });
    case 'ROA_ERR_REQUEST_ABORTED':
      return createError(400, 'request aborted', { code: 'ECONNABORTED', expected: length, length, type: 'request.aborted' });
    case 'ROA_ERR_BODY_LENGTH_MISMATCH':
      return createError(400, 'request size did not match content length', { expected: length, length, type: 'request.size.invalid' });
    default:
      return err;
  }
}
