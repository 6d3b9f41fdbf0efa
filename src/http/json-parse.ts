/**
 * @module http/json-parse
 * The one JSON parser for request bodies: `secure-json-parse` guards against prototype poisoning,
 * and a failure becomes a 400 that quotes none of the client's text.
 */
import secureJson from 'secure-json-parse';
import { HttpError } from '../errors/http-error.js';

/**
 * Parses JSON text, refusing a `__proto__` key or a `constructor.prototype` path at any depth
 * (secure-json-parse's defaults): JSON.parse makes them own properties, but a later merge
 * (Object.assign, spread, lodash.merge) would follow them to Object.prototype. Other keys named
 * `constructor` or `prototype` are ordinary data and kept. Throws 400 `ROA_ERR_MALFORMED_JSON`.
 * @example
 *   parseJson('{"a":1}');              // { a: 1 }
 *   parseJson('{"__proto__":{"x":1}}'); // throws HttpError 400
 */
export function parseJson(text: string): unknown {
  try {
    return secureJson.parse(text);
  } catch (err) {
    // No `cause`: V8's message quotes the body, which must not reach clients or logs.
    throw new HttpError(400, describeSyntaxError(err, text), { code: 'ROA_ERR_MALFORMED_JSON' });
  }
}

/**
 * The parser's message, without the excerpt of the input V8 sometimes quotes (`..., "{"a":}" is
 * not valid JSON`): the body is the client's own and may be large or sensitive. A position
 * becomes line and column, which locate the error without echoing anything.
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
