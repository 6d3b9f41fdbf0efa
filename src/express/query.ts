/**
 * @module express/query
 * Express 4's `query parser` setting compiled into a function, and `express.query()`, the
 * middleware that fills `req.query` with such a parser.
 */
import querystring from 'node:querystring';
import qs from 'qs';
import parseUrl from 'parseurl';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type QueryParser = (text: string) => Record<string, unknown>;

/** Where an app keeps the compiled `query parser` setting (Express's name for it). */
export const QUERY_PARSER_FN_SETTING = 'query parser fn';

/**
 * Express 4's `extended` parser: qs nesting (`a[b]=1`), with `allowPrototypes` as Express sets it,
 * so keys named like Object.prototype members (`hasOwnProperty`) are kept as own keys (qs never
 * writes through `__proto__`, so Object.prototype itself is not reached), and arrays up to 1000.
 */
export function parseExtendedQuery(text: string): Record<string, unknown> {
  return qs.parse(text, { allowPrototypes: true, arrayLimit: 1000 }) as Record<string, unknown>;
}

/** Express 4's `simple` parser: node:querystring, flat keys, repeated keys as arrays. */
export function parseSimpleQuery(text: string): Record<string, unknown> {
  return querystring.parse(text) as Record<string, unknown>;
}

function noQuery(): Record<string, unknown> {
  return {};
}

/**
 * Compiles a `query parser` value as Express 4 does: `'extended'` qs, `true`/`'simple'`
 * node:querystring, `false` no parsing (`{}`), a function as it is; anything else throws when set.
 * @example
 *   compileQueryParser('simple')('a[b]=1')  // { 'a[b]': '1' }
 */
export function compileQueryParser(value: unknown): QueryParser | undefined {
  if (typeof value === 'function') return value as QueryParser;
  switch (value) {
    case 'extended':
      return parseExtendedQuery;
    case false:
      return noQuery;
    case true:
    case 'simple':
      return parseSimpleQuery;
    default:
      throw new TypeError(`unknown value for query parser function: ${String(value)}`);
  }
}

interface QueryOptions extends qs.IParseOptions {
  /** Not a qs option: a parser to use instead of qs (Express 4 accepts one here). */
  [key: string]: unknown;
}

/**
 * `express.query(options)`: sets `req.query` from the URL's query string, with qs and these
 * options, or with the function given instead of options.
 * @example
 *   app.use(express.query({ depth: 2 }))
 */
export function query(options?: QueryOptions | QueryParser) {
  let parse: QueryParser;
  if (typeof options === 'function') {
    parse = options;
  } else {
    const opts: qs.IParseOptions = { allowPrototypes: true, ...options };
    parse = (text) => qs.parse(text, opts) as Record<string, unknown>;
  }
  // The app's own `req.query` is computed lazily from its `query parser`; options given here are the
  // caller's explicit choice, so they replace it for the rest of the chain.
  return function queryMiddleware(req: IncomingMessage & { query?: unknown }, _res: ServerResponse, next: () => void): void {
    const text = parseUrl(req)?.query;
    req.query = parse(typeof text === 'string' ? text : '');
    next();
  };
}
