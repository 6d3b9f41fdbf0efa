/**
 * @module http/accepts
 * Proactive content negotiation on `Accept` (RFC 9110 §12.5.1) by `negotiator`, the library behind
 * Express's `req.accepts` and `res.format`, memoised per header and offer list.
 */
import Negotiator from 'negotiator';
import { BoundedMap } from '../util/bounded-map.js';
import { contentTypeFor } from './mime.js';

// Clients send few distinct Accept values and call sites offer fixed lists, so negotiator's answers
// are remembered per offer list and header (bounded maps). A call site's list is
// found by identity first, checked against a copy in case the caller changed it since.
interface ListMemo {
  offers: readonly string[];
  chosen: BoundedMap<string, string | null>;
}
const BY_LIST = new WeakMap<readonly string[], ListMemo>();
const LISTS_LIMIT = 64;
const ANSWERS_LIMIT = 256;
const BY_KEY = new BoundedMap<string, ListMemo>(LISTS_LIMIT);

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
  const memo = memoFor(offers);
  let chosen = memo.chosen.get(accept);
  if (chosen === undefined) {
    chosen = choose(accept, offers) ?? null;
    memo.chosen.set(accept, chosen);
  }
  return chosen ?? undefined;
}

function memoFor(offers: readonly string[]): ListMemo {
  let memo = BY_LIST.get(offers);
  if (memo !== undefined && sameList(memo.offers, offers)) return memo;
  // A media type cannot hold LF, so it separates the offers unambiguously.
  const key = offers.join('\n');
  memo = BY_KEY.get(key);
  if (memo === undefined) {
    memo = { offers: [...offers], chosen: new BoundedMap(ANSWERS_LIMIT) };
    BY_KEY.set(key, memo);
  }
  BY_LIST.set(offers, memo);
  return memo;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
