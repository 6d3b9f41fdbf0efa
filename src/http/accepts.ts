/**
 * @module http/accepts
 * Proactive content negotiation on `Accept` (RFC 9110 §12.5.1): picks the offered media type the
 * client ranks highest, preferring the more specific range and then the server's order.
 */

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  params: number;
  order: number;
}

const cache = new Map<string, MediaRange[]>();
const CACHE_LIMIT = 256;

/** Parses an Accept header (memoised: clients send few distinct values). */
export function parseAccept(header: string): MediaRange[] {
  const hit = cache.get(header);
  if (hit) return hit;
  const ranges: MediaRange[] = [];
  let order = 0;
  for (const part of header.split(',')) {
    const pieces = part.split(';');
    const full = pieces[0]!.trim().toLowerCase();
    if (full === '') continue;
    const slash = full.indexOf('/');
    const type = slash === -1 ? full : full.slice(0, slash);
    const subtype = slash === -1 ? '*' : full.slice(slash + 1);
    let q = 1;
    let params = 0;
    for (let i = 1; i < pieces.length; i++) {
      const eq = pieces[i]!.indexOf('=');
      const key = pieces[i]!.slice(0, eq === -1 ? undefined : eq).trim().toLowerCase();
      if (key === 'q') {
        const value = Number(pieces[i]!.slice(eq + 1).trim());
        q = Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0;
      } else if (key !== '' && !(key === 'charset' && /^"?utf-?8"?$/i.test(pieces[i]!.slice(eq + 1).trim()))) {
        // A parameter narrows the range to offers carrying it (RFC 9110 §12.5.1). roa's offers carry
        // none, so such a range matches nothing — except charset=utf-8, which is what roa always sends.
        params++;
      }
    }
    ranges.push({ type, subtype, q, params, order: order++ });
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(header, ranges);
  return ranges;
}

/** How well `offer` (e.g. `application/json`) fits `range`: -1 no fit, higher is more specific. */
function specificity(range: MediaRange, offerType: string, offerSubtype: string): number {
  if (range.type === '*' && range.subtype === '*') return 0;
  if (range.type !== offerType) return -1;
  if (range.subtype === '*') return 1;
  if (range.subtype !== offerSubtype) return -1;
  if (range.params > 0) return -1;
  return 2;
}

/**
 * Chooses among `offers` for the given Accept header. A missing header accepts anything, so the
 * first offer wins. Returns undefined when nothing offered is acceptable (406).
 */
export function negotiate(accept: string | undefined, offers: readonly string[]): string | undefined {
  if (offers.length === 0) return undefined;
  if (accept === undefined || accept.trim() === '') return offers[0];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return offers[0];
  let best: string | undefined;
  let bestQ = 0;
  let bestSpec = -1;
  let bestOrder = Infinity;
  for (let i = 0; i < offers.length; i++) {
    const offer = offers[i]!;
    const lower = offer.toLowerCase();
    const slash = lower.indexOf('/');
    const type = lower.slice(0, slash);
    const subtype = lower.slice(slash + 1);
    // The most specific matching range decides the offer's quality (RFC 9110 §12.5.1).
    let q = -1;
    let spec = -1;
    let order = Infinity;
    for (const range of ranges) {
      const s = specificity(range, type, subtype);
      // Among equally specific ranges (duplicates) the highest q counts, as negotiator does.
      if (s > spec || (s === spec && s >= 0 && range.q > q)) {
        spec = s;
        q = range.q;
        order = range.order;
      }
    }
    if (spec < 0 || q <= 0) continue;
    if (q > bestQ || (q === bestQ && (spec > bestSpec || (spec === bestSpec && order < bestOrder)))) {
      best = offer;
      bestQ = q;
      bestSpec = spec;
      bestOrder = order;
    }
  }
  return best;
}

/** True when the client lists HTML (or any type) acceptably: browsers and `*\/*`. */
export function acceptsType(accept: string | undefined, type: string): boolean {
  return negotiate(accept, [type]) !== undefined;
}
