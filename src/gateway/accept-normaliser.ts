/**
 * @module gateway/accept-normaliser
 * Collapses a request's Accept to one supported media type so `Vary: Accept` does not fragment the cache.
 */
import { negotiate } from '../http/accepts.js';
import { headerMemo } from './header-memo.js';

/**
 * The representations roa's article service serves, in the order its views list them (XML first, the
 * default for clients that send no Accept or `*\/*`; HTML last, which a browser's Accept still
 * chooses by its q-values); the embedded gateway normalises Accept to these, so `Vary: Accept`
 * keeps three copies. Listing a type the origin cannot produce would turn an Accept preferring it
 * into a 406; leaving out one it produces would send its readers another representation.
 */
export const ROA_MEDIA_TYPES = ['application/xml', 'application/json', 'text/html'];

/**
 * Returns a function mapping an Accept value to the type the origin would choose among `supported`,
 * or to the first supported type when Accept is absent. It chooses with the origin's own
 * negotiation (http/accepts: q-value, then specificity, then the client's order, then the order of
 * `supported`, RFC 9110 §12.5.1), so a normalised request gets exactly what the raw one would
 * have. When nothing acceptable is supported the value is left as it was, so the origin still
 * answers 406 itself.
 * @example
 *   const normalise = acceptNormaliser(['application/json', 'text/html']);
 *   normalise('text/*;q=0.9, application/json'); // 'application/json'
 */
export function acceptNormaliser(supported: readonly string[]): (accept: string | undefined) => string | undefined {
  if (supported.length === 0) throw new TypeError('normaliseAccept: give at least one media type');
  const types = supported.map((t) => t.toLowerCase());
  const normalised = headerMemo((accept) => (accept.trim() === '' ? types[0]! : negotiate(accept, types) ?? accept), 1000);
  return (accept) => (accept === undefined ? types[0] : normalised(accept));
}
