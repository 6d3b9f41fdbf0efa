/**
 * @module middleware/json
 * json(): parses `application/json` and `+json` bodies into `req.body`, only where mounted.
 */
import { HttpError } from '../errors/http-error.js';
import { parseJson } from '../http/json-parse.js';
import { bodyParser, type BodyParserOptions } from './body-parser.js';

export interface JsonOptions extends BodyParserOptions {
  /** Only objects and arrays at the top level (default true), as body-parser does. */
  strict?: boolean;
}

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
    return parseJson(text);
  });
}

function malformed(detail: string): HttpError {
  return new HttpError(400, detail, { code: 'ROA_ERR_MALFORMED_JSON' });
}
