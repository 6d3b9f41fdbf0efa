/**
 * @module http/accepts
 * Proactive content negotiation on `Accept` (RFC 9110 §12.5.1) by `negotiator`, the library behind
 * Express's `req.accepts` and `res.format`, memoised per header and offer list.
 */
import Negotiator from 'negotiator';
import { contentTypeFor } from './mime.js';

// Clients send few distinct Accept values and call sites offer fixed lists; a bounded memo
// (cleared when full) keeps negotiator's parsing off the hot path.
const MEMO = new Map<string, string | null>();
const MEMO_LIMIT = 1024;

/**
 * Chooses among `offers` for the given Accept header, as negotiator does: q-value, then the
 * specificity of the range, then the client's order, then the order of `offers`. Ranges it cannot
 * read (`application`, no slash) count for nothing. A missing or blank header accepts anything, so
 * the first offer wins. Returns undefined when nothing offered is acceptable (406).
 * @example
 *   negotiate('text/html;q=0.5, application/json', ['text/html', 'application/json']); // 'application/json'
 */
export function negotiate(accept: string | undefined, offers: readonly string[]): string | undefined {
  if (offers.length === 0) return undefined;
  if (accept === undefined || accept.trim() === '') return offers[0];
  // A field value cannot hold LF, so it separates the header from the offers unambiguously.
  const key = accept + '\n' + offers.join('\n');
  let chosen = MEMO.get(key);
  if (chosen === undefined) {
    chosen = choose(accept, offers) ?? null;
    if (MEMO.size >= MEMO_LIMIT) MEMO.clear();
    MEMO.set(key, chosen);
  }
  return chosen ?? undefined;
}

/**
 * A range with parameters fits only offers carrying them (§12.5.1). roa labels its text types
 * `charset=utf-8`, so those offers are shown to negotiator with that parameter: a client asking
 * for `application/json; charset=utf-8` gets the JSON roa sends, and one asking for latin1 does not.
 */
function choose(accept: string, offers: readonly string[]): string | undefined {
  const labelled = offers.map((o) => (o.includes('/') ? contentTypeFor(o) : o));
  const best = new Negotiator({ headers: { accept } }).mediaTypes(labelled)[0];
  return best === undefined ? undefined : offers[labelled.indexOf(best)];
}

/** True when the client lists the type (or a range covering it) acceptably: browsers and `*\/*`. */
export function acceptsType(accept: string | undefined, type: string): boolean {
  return negotiate(accept, [type]) !== undefined;
}
