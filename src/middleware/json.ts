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
// target, lodash.merge) would follow it to Object.prototype: such keys are dropped outright.
function dropDangerousKeys(this: unknown, key: string, value: unknown): unknown {
  return FORBIDDEN.has(key) ? undefined : value;
}

/**
 * @example
 *   app.post('/echo', json({ limit: '10kb' }), (req, res) => res.json(req.body))
 */
export function json(options: JsonOptions = {}) {
  const strict = options.strict !== false;
  return bodyParser(
    options,
    (m) => m === 'application/json' || m.endsWith('+json'),
    (text) => {
      if (strict) {
        const first = /^[\s\uFEFF]*(.)/.exec(text)?.[1];
        if (first !== '{' && first !== '[') {
          throw new HttpError(400, 'JSON body must be an object or an array', { code: 'ROA_ERR_MALFORMED_JSON' });
        }
      }
      try {
        return JSON.parse(text, dropDangerousKeys);
      } catch (err) {
        throw new HttpError(400, `Malformed JSON: ${(err as Error).message.slice(0, 200)}`, { code: 'ROA_ERR_MALFORMED_JSON' });
      }
    },
  );
}
