/** @module Small statistics helpers: the harness reports medians, never means. */

/** Median of the finite numbers in `xs`, or NaN if there are none. */
export function median(xs) {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
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
