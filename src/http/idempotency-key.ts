/**
 * @module http/idempotency-key
 * Reads the `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header): a structured-field
 * String (RFC 8941 §3.3.3, `"a1b2"`), or, as clients commonly send it, a bare RFC 9110 token such as a UUID.
 */
import { parseItem } from 'structured-headers';
import { HttpError } from '../errors/http-error.js';

/** Longest key accepted, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** RFC 9110 §5.6.2 token: no spaces, commas, quotes or other delimiters, so a list can never pass as one. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The key a request carries, or undefined without the header. Anything else than one string or token
 * of 1 to 255 characters (empty, too long, an Integer or other item, parameters, a list, two header
 * lines) is a 400 problem, `ROA_ERR_BAD_IDEMPOTENCY_KEY`.
 * @example
 *   parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"') // '8e03978e-40d5-43e8-bc93-6894a57f9324'
 */
export function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badKey('send one Idempotency-Key');
  const key = value.startsWith('"') ? sfString(value) : value;
  if (key === '') throw badKey('an Idempotency-Key must not be empty');
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw badKey(`an Idempotency-Key holds at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  if (!value.startsWith('"') && !TOKEN.test(key)) throw badKey('an Idempotency-Key is a quoted string or a token (letters, digits and !#$%&\'*+-.^_`|~)');
  return key;
}

function sfString(value: string): string {
  let item: ReturnType<typeof parseItem>;
  try {
    item = parseItem(value);
  } catch {
    throw badKey('an Idempotency-Key is one structured-field string (RFC 8941 §3.3.3) or a token');
  }
  const [bare, params] = item;
  if (typeof bare !== 'string' || params.size > 0) throw badKey('an Idempotency-Key is one string, without parameters');
  return bare;
}

function badKey(message: string): HttpError {
  return new HttpError(400, message, { code: 'ROA_ERR_BAD_IDEMPOTENCY_KEY' });
}
