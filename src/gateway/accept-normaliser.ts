/**
 * @module gateway/accept-normaliser
 * Collapses a request's Accept to one supported media type so `Vary: Accept` does not fragment the cache.
 */

interface Range {
  type: string;
  subtype: string;
  q: number;
  order: number;
}

/**
 * Returns a function mapping an Accept value to the best supported type (RFC 9110 §12.5.1
 * precedence: q-value, then specificity, then order), or to the first supported type when
 * Accept is absent. When nothing acceptable is supported the value is left as it was, so the
 * origin still answers 406 itself.
 * @example
 *   const normalise = acceptNormaliser(['application/json', 'text/html']);
 *   normalise('text/*;q=0.9, application/json'); // 'application/json'
 */
export function acceptNormaliser(supported: readonly string[]): (accept: string | undefined) => string | undefined {
  if (supported.length === 0) throw new TypeError('normaliseAccept: give at least one media type');
  const types = supported.map((t) => t.toLowerCase());
  const memo = new Map<string, string>();
  return (accept) => {
    if (accept === undefined || accept.trim() === '') return types[0];
    const known = memo.get(accept);
    if (known !== undefined) return known;
    const result = pick(types, parse(accept)) ?? accept;
    if (memo.size < 1000) memo.set(accept, result);
    return result;
  };
}

function parse(accept: string): Range[] {
  return accept.split(',').map((part, order) => {
    const [range, ...params] = part.split(';');
    const [type = '', subtype = ''] = (range ?? '').trim().toLowerCase().split('/');
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=');
      if (k?.trim().toLowerCase() === 'q') q = Number(v?.trim() ?? '1');
    }
    return { type, subtype, q: Number.isFinite(q) ? q : 0, order };
  });
}

function pick(types: string[], ranges: Range[]): string | undefined {
  let best: string | undefined;
  let bestQ = 0;
  for (const t of types) {
    const [type, subtype] = t.split('/');
    let match: Range | undefined;
    let spec = -1;
    for (const r of ranges) {
      const s = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === '*' ? 1 : r.type === '*' ? 0 : -1;
      if (s > spec) {
        spec = s;
        match = r;
      }
    }
    if (match !== undefined && match.q > bestQ) {
      best = t;
      bestQ = match.q;
    }
  }
  return best;
}
