/**
 * @module middleware/json
 * json(): parses `application/json` and `+json` bodies into `req.body`, only where mounted.
 */
import { HttpError } from '../errors/http-error.js';
import { bodyParser, type BodyParserOptions } from './body-parser.js';

export interface JsonOptions extends BodyParserOptions {
  /** Only objects and arrays at the top level (default true), as body-parser does. */
  strict?: boolean;
}

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

// JSON.parse makes `__proto__` an own property, but a later merge (Object.assign, spread into a
// target, lodash.merge) would follow it to Object.prototype, and `constructor.prototype` is the
// other road there: such keys are dropped, at any depth.
function dropDangerousKeys(key: string, value: unknown): unknown {
  return FORBIDDEN.has(key) ? undefined : value;
}

// A reviver slows JSON.parse down several times; only text that could hold such a key pays for it
// (`\u` covers escaped spellings like "__pro\u0074o__").
const MAY_HOLD_FORBIDDEN = /__proto__|constructor|prototype|\\u/;

/** JSON's insignificant whitespace (RFC 8259 §2); a UTF-8 BOM is already gone. */
const FIRST_TOKEN = /^[ \t\n\r]*(.)/;

/**
 * Parses JSON request bodies. Types other than its own pass through untouched (`req.body` is `{}`,
 * as in Express 4); an empty body gives `{}`. Failures go to `next(err)`: 400
 * `ROA_ERR_MALFORMED_JSON`, 413 `ROA_ERR_BODY_TOO_LARGE`, 415 `ROA_ERR_UNSUPPORTED_CHARSET`.
 * @example
 *   app.post('/echo', json({ limit: '10kb' }), (req, res) => res.json(req.body))
 */
export function json(options: JsonOptions = {}) {
  const strict = options.strict !== false;
  return bodyParser('json', options, ['application/json', '+json'], (text) => {
    if (strict) {
      // Most bodies start right at `{` or `[`; only others pay for the whitespace-skipping regex.
      const c = text.charCodeAt(0);
      const first = c === 123 /* { */ || c === 91 /* [ */ ? text[0] : FIRST_TOKEN.exec(text)?.[1];
      if (first !== '{' && first !== '[') {
        throw malformed(first === undefined ? 'The body holds only whitespace' : 'The top-level JSON value must be an object or an array');
      }
    }
    try {
      return MAY_HOLD_FORBIDDEN.test(text) ? JSON.parse(text, dropDangerousKeys) : JSON.parse(text);
    } catch (err) {
      throw malformed(describeSyntaxError(err, text), err);
    }
  });
}

function malformed(detail: string, cause?: unknown): HttpError {
  return new HttpError(400, detail, { code: 'ROA_ERR_MALFORMED_JSON', cause });
}

/**
 * V8's message, without the excerpt of the input it sometimes quotes (`..., "{"a":}" is not valid
 * JSON`): the body is the client's own and may be large or sensitive. A position becomes line and
 * column, which locate the error without echoing anything.
 */
export function describeSyntaxError(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : String(err);
  const position = /at position (\d+)/.exec(message);
  let reason = message.replace(/, (?:\.\.\.)?".*is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '').replace(/ at position \d+.*$/s, '');
  if (reason.length > 80) reason = reason.slice(0, 80) + '…';
  if (!position) return `Malformed JSON: ${reason}`;
  const offset = Number(position[1]);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `Malformed JSON: ${reason} at line ${line}, column ${column}`;
}
