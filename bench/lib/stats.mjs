/** @module Small statistics helpers: the harness reports medians, never means. */

/** Median of the finite numbers in `xs`, or NaN if there are none. */
export function median(xs) {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/**
 * A distribution-free confidence interval for the median of the finite numbers in `xs`: the order
 * statistics x(k) and x(n+1-k), with k the largest rank whose two-sided binomial tail stays within
 * 1 - `confidence` (no assumption about how the noise is distributed). [NaN, NaN] with fewer than
 * six values, too few for a 95% interval.
 * @example medianInterval([0.7, 0.8, 0.75, 0.9, 0.6, 0.85]) // [0.6, 0.9]
 */
export function medianInterval(xs, confidence = 0.95) {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const n = v.length;
  // P(X < k) for X ~ Binomial(n, 1/2): the chance the median lies below x(k).
  let below = 0;
  let k = 0;
  let term = 0.5 ** n; // P(X = 0)
  for (let i = 0; i < n; i++) {
    if (2 * (below + term) > 1 - confidence) break;
    below += term;
    term = (term * (n - i)) / (i + 1);
    k = i + 1;
  }
  if (k === 0) return [NaN, NaN];
  return [v[k - 1], v[n - k]];
}

/** Spread of the finite numbers in `xs` as (max - min) / median, or NaN. */
export function spread(xs) {
  const v = xs.filter(Number.isFinite);
  if (v.length < 2) return NaN;
  return (Math.max(...v) - Math.min(...v)) / median(v);
}

/** Formats a number with a fixed number of decimals, or an em dash when not finite. */
export function fmt(x, digits = 0) {
  if (!Number.isFinite(x)) return '—';
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Formats a ratio a/b as "0.93×", or an em dash. */
export function ratio(a, b) {
  return b === 0 ? '—' : times(a / b);
}

/** Formats a ratio already computed as "0.93×", or an em dash when not finite. */
export function times(r) {
  return Number.isFinite(r) ? `${r.toFixed(2)}×` : '—';
}
