/**
 * @module resources/article/article-validate
 * Validation of article input: title 1–200 characters of text XML can carry, price an exact
 * decimal with up to 30 integer and 18 fraction digits, currency an ISO-4217-shaped lower-case
 * code. Never a float.
 */
import type { HttpError } from '../../errors/http-error.js';
import { validationError, type FieldError } from '../../errors/problem.js';
import { hasXmlForbiddenChar } from '../../http/xml-text.js';
import type { ArticleInput } from '../../storage/store.js';

// Kept as text end to end (TEXT columns in both databases): the digits the client sent are the
// digits stored and shown, trailing zeros included.
const AMOUNT = /^\d{1,30}(?:\.\d{1,18})?$/;
const CURRENCY = /^[a-z]{3}$/;
const FIELDS = new Set(['title', 'price']);
const PRICE_FIELDS = new Set(['amount', 'currency']);

/** Returns the checked input or throws 422 listing every problem. */
export function validateArticle(body: unknown): ArticleInput {
  const errors: FieldError[] = [];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid([{ field: '', message: 'expected an article with a title and a price' }]);
  }
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!FIELDS.has(k)) errors.push({ field: k, message: 'unknown field' });
  const title = b.title;
  if (typeof title !== 'string' || title.length === 0) errors.push({ field: 'title', message: 'required, 1-200 characters' });
  else if ([...title].length > 200) errors.push({ field: 'title', message: 'at most 200 characters' });
  // Every representation must stay well-formed XML, and a lone surrogate would not survive UTF-8.
  else if (hasXmlForbiddenChar(title)) errors.push({ field: 'title', message: 'holds a character XML 1.0 cannot carry (a control character, U+FFFE, U+FFFF or a lone surrogate)' });
  const price = b.price;
  let amount: unknown;
  let currency: unknown;
  if (price === null || typeof price !== 'object' || Array.isArray(price)) {
    errors.push({ field: 'price', message: 'required: an amount and a currency' });
  } else {
    const p = price as Record<string, unknown>;
    for (const k of Object.keys(p)) if (!PRICE_FIELDS.has(k)) errors.push({ field: `price.${k}`, message: 'unknown field' });
    amount = p.amount;
    currency = p.currency;
    if (typeof amount === 'number') {
      // A JSON number has already lost its digits (9.90 → 9.9, 20 digits → a double) by the time
      // JSON.parse hands it over, and Node 20's JSON.parse gives a reviver no source text: only a
      // string keeps them exact, so every number is refused rather than some silently rounded.
      errors.push({ field: 'price.amount', message: 'must be a string of decimal digits such as "9.90", not a number' });
    } else if (typeof amount !== 'string' || !AMOUNT.test(amount)) {
      errors.push({ field: 'price.amount', message: 'must be a non-negative decimal with up to 30 integer and 18 fraction digits' });
    }
    if (typeof currency !== 'string' || !CURRENCY.test(currency)) {
      errors.push({ field: 'price.currency', message: 'must be a three-letter lower-case ISO 4217 code such as "eur"' });
    }
  }
  if (errors.length > 0) throw invalid(errors);
  return { title: title as string, price: { amount: amount as string, currency: currency as string } };
}

/** The 422 listing every problem; its message joins them for clients that read only `detail`. */
function invalid(errors: FieldError[]): HttpError {
  return validationError(errors, errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; '));
}
