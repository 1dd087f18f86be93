/** Small statistics helpers for the benchmark tables. */

/**
 * The q-quantile (0..1) of `values` by nearest rank; NaN for an empty list.
 * @param {number[]} values
 * @param {number} q
 */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = values.toSorted((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** @param {number[]} values */
export const p50 = (values) => quantile(values, 0.5);
/** @param {number[]} values */
export const p95 = (values) => quantile(values, 0.95);

/**
 * `a / b` rounded to 3 significant digits; null when undefined.
 * @param {number} a
 * @param {number} b
 */
export function ratio(a, b) {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return Number((a / b).toPrecision(3));
}

/** @param {number} value */
export const round1 = (value) => (Number.isFinite(value) ? Math.round(value * 10) / 10 : null);
