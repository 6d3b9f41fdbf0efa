/**
 * @module auth/consent/strict-form
 * application/x-www-form-urlencoded read strictly, for the authorization endpoints' queries and
 * forms: a `%` not followed by two hex digits, bytes that are not UTF-8 once decoded, or a name given
 * twice are errors (RFC 6749 §3.1: "parameters MUST NOT be included more than once"), where
 * URLSearchParams would silently keep or replace them.
 */
import { HttpError } from '../../errors/http-error.js';

/** Why a form was refused, for the page or the redirect that reports it. */
export class FormError extends HttpError {
  constructor(message: string) {
    super(400, message, { code: 'ROA_ERR_MALFORMED_FORM' });
  }
}

const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * The pairs of `text` (a query without its `?`, or a form body), or a FormError (400).
 * @example
 *   parseStrictForm('a=1&b=%E2%9C%93') // Map { 'a' => '1', 'b' => '✓' }
 *   parseStrictForm('a=%zz')           // throws FormError
 */
export function parseStrictForm(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  if (text === '') return fields;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    if (fields.has(name)) throw new FormError(`Parameter "${name.slice(0, 64)}" is repeated`);
    fields.set(name, value);
  }
  return fields;
}

function decode(s: string): string {
  if (BAD_ESCAPE.test(s)) throw new FormError('Malformed percent-encoding');
  try {
    // decodeURIComponent refuses escapes that do not form UTF-8 (URIError).
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw new FormError('Percent-encoded bytes are not UTF-8');
  }
}

/** The query of a request target (after `?`), or '' when it has none. */
export function queryOf(target: string): string {
  const q = target.indexOf('?');
  return q < 0 ? '' : target.slice(q + 1);
}
