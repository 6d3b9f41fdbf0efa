/**
 * @module middleware/urlencoded
 * urlencoded(): parses HTML form bodies (`a[b][c]=1` → `{ a: { b: { c: '1' } } }` when extended).
 */
import { HttpError } from '../errors/http-error.js';
import { parseQuery } from '../http/query.js';
import { bodyParser, type BodyParserOptions } from './body-parser.js';

export interface UrlencodedOptions extends BodyParserOptions {
  /** qs-style nesting (default true); false gives flat keys, as node:querystring. */
  extended?: boolean;
  /** Most parameters accepted (default 1000); more → 413, as body-parser answers. */
  parameterLimit?: number;
  /**
   * Deepest nesting kept as objects (default 5, qs's and req.query's). Deeper brackets are not
   * refused: the rest stays one literal key (`a[b][c][d]` at depth 2 → `{a:{b:{c:{'[d]':..}}}}`),
   * exactly as the same string in the query would parse.
   */
  depth?: number;
}

function nonNegativeInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`roa: urlencoded({ ${name} }) must be a non-negative integer`);
  return value;
}

/**
 * Parses `application/x-www-form-urlencoded` bodies. Keys that would shadow or reach
 * `Object.prototype` (`__proto__`, `constructor`, `hasOwnProperty`, ...) are dropped in both modes.
 * Failures go to `next(err)`: 413 over `limit` or `parameterLimit`, 415 for a charset other than
 * UTF-8.
 * @example
 *   app.use(urlencoded({ extended: true }), methodOverride())
 */
export function urlencoded(options: UrlencodedOptions = {}) {
  const extended = options.extended !== false;
  const parameterLimit = nonNegativeInteger('parameterLimit', options.parameterLimit, 1000);
  const depth = nonNegativeInteger('depth', options.depth, 5);
  return bodyParser('urlencoded', options, 'application/x-www-form-urlencoded', (text) => {
    const count = countParameters(text, parameterLimit);
    if (count > parameterLimit) {
      throw new HttpError(413, `Too many parameters (limit ${parameterLimit})`, {
        code: 'ROA_ERR_TOO_MANY_PARAMETERS',
        extensions: { parameterLimit },
      });
    }
    // As body-parser: arrays as long as the form has fields, and never shorter than 100.
    return extended ? parseQuery(text, { depth, parameterLimit, arrayLimit: Math.max(100, count) }) : parseFlat(text);
  });
}

/** `&`-separated pairs, counting no further than one past the limit. */
function countParameters(text: string, limit: number): number {
  let count = 1;
  for (let i = text.indexOf('&'); i !== -1 && count <= limit; i = text.indexOf('&', i + 1)) count++;
  return count;
}

/**
 * Flat parsing, node:querystring's shape: `a[b]=1` stays the key `a[b]`, a repeated key becomes
 * an array. A plain object, so an `Object.prototype` name is skipped (qs's `allowPrototypes: false`).
 */
function parseFlat(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (key in Object.prototype) continue;
    const prev = Object.prototype.hasOwnProperty.call(out, key) ? out[key] : undefined;
    if (prev === undefined) out[key] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[key] = [prev, value];
  }
  return out;
}
