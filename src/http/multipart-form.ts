/**
 * @module http/multipart-form
 * `multipart/form-data` bodies (RFC 7578) of HTML forms, text fields only, parsed by undici's
 * `Response#formData()` (the Fetch standard's parser, which Node's own `fetch` uses), then nested
 * as urlencoded forms are (`price[amount]` → `{ price: { amount } }`).
 */
import { Response } from 'undici';
import { HttpError } from '../errors/http-error.js';
import { parseQuery, type ParsedQuery } from './query.js';

/** Most fields read from one form, as urlencoded()'s parameterLimit. */
export const MULTIPART_FIELD_LIMIT = 1000;

/**
 * Parses a whole (already size-bounded) multipart body. A file part is refused (415
 * `ROA_ERR_FORM_FILE`: roa's forms have no file inputs, and nothing would store it), a body that is
 * not multipart as its boundary says is a 400, more than `MULTIPART_FIELD_LIMIT` fields a 413.
 * @example
 *   await parseMultipartForm(raw, 'multipart/form-data; boundary=x') // { title: 'Tea', price: { amount: '9.90' } }
 */
export async function parseMultipartForm(raw: Buffer, contentType: string): Promise<ParsedQuery> {
  let form: Awaited<ReturnType<Response['formData']>>;
  try {
    form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  } catch (err) {
    throw new HttpError(400, 'The multipart/form-data body could not be parsed', { code: 'ROA_ERR_MALFORMED_BODY', cause: err });
  }
  const flat = new URLSearchParams();
  let count = 0;
  for (const [name, value] of form) {
    if (typeof value !== 'string') throw new HttpError(415, 'File fields are not accepted; send text fields only', { code: 'ROA_ERR_FORM_FILE' });
    if (++count > MULTIPART_FIELD_LIMIT) {
      throw new HttpError(413, `Too many parameters (limit ${MULTIPART_FIELD_LIMIT})`, { code: 'ROA_ERR_TOO_MANY_PARAMETERS', extensions: { parameterLimit: MULTIPART_FIELD_LIMIT } });
    }
    flat.append(name, value);
  }
  // The same nesting and prototype rules as a urlencoded body.
  return parseQuery(flat.toString(), { parameterLimit: MULTIPART_FIELD_LIMIT, arrayLimit: Math.max(100, count) });
}
