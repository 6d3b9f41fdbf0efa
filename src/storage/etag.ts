/** @module storage/etag Content hash of an article, shared by every adapter so all stores agree on etags. */
import { createHash } from 'node:crypto';
import type { ArticleInput } from './store.js';

/**
 * The strong validator of an article's content (RFC 9110 §8.8.3): 22 chars of base64url sha256 over
 * (title, amount, currency). Unquoted; the HTTP layer adds the quotes. Owner, id and dates are left out
 * so identical content yields the identical etag wherever and whenever it is stored.
 * @example
 *   contentEtag({ title: 'Tea', price: { amount: '3.50', currency: 'EUR' } }) // => 22 chars
 */
export function contentEtag(input: ArticleInput): string {
  // JSON of an array keeps field boundaries unambiguous ("a","bc" vs "ab","c").
  const text = JSON.stringify([input.title, input.price.amount, input.price.currency]);
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}
