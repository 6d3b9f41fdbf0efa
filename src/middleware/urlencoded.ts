/**
 * @module middleware/urlencoded
 * urlencoded(): parses HTML form bodies (`a[b][c]=1` → `{ a: { b: { c: '1' } } }` when extended).
 */
import { HttpError } from '../errors/http-error.js';
import { parseQuery } from '../http/query.js';
import { bodyParser, type BodyParserOptions } from './body-parser.js';

export interface UrlencodedOptions extends BodyParserOptions {
  /** qs-style nesting (default true); false gives flat keys. */
  extended?: boolean;
  /** Most parameters accepted (default 1000); more → 413, as body-parser answers. */
  parameterLimit?: number;
  /** Deepest nesting kept (default 5). */
  depth?: number;
}

/**
 * @example
 *   app.use(urlencoded({ extended: true }), methodOverride())
 */
export function urlencoded(options: UrlencodedOptions = {}) {
  const extended = options.extended !== false;
  const parameterLimit = options.parameterLimit ?? 1000;
  const depth = options.depth ?? 5;
  return bodyParser(options, (m) => m === 'application/x-www-form-urlencoded', (text) => {
    const count = text === '' ? 0 : text.split('&').length;
    if (count > parameterLimit) {
      throw new HttpError(413, `Too many parameters (limit ${parameterLimit})`, { code: 'ROA_ERR_TOO_MANY_PARAMETERS' });
    }
    if (extended) return parseQuery(text, { depth, parameterLimit });
    const flat: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
    for (const [k, v] of new URLSearchParams(text)) {
      if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
      const prev = flat[k];
      flat[k] = prev === undefined ? v : ([] as string[]).concat(prev, v);
    }
    return { ...flat };
  });
}
