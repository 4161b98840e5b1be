// The median the benchmark reports use to sum up rounds: robust to the one round a shared machine spoils.

/** The median of the finite values (the mean of the middle two for an even count); NaN when there are none. */
export function median(xs: readonly number[]): number {
  const sorted = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
