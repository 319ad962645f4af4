/** Interpolated between the two nearest ranks, so a median of an even count is the mean of the middle two. NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

export const median = (values: readonly number[]): number => percentile(values, 50);

/** Median, min and max of one series of samples, the samples kept. */
export interface Series {
  samples: number[];
  median: number;
  min: number;
  max: number;
}

export const series = (samples: number[]): Series => ({ samples, median: median(samples), min: Math.min(...samples), max: Math.max(...samples) });

export interface Spread {
  median: number;
  p95: number;
  min: number;
  max: number;
}

export const spread = (values: readonly number[]): Spread => ({
  median: median(values),
  p95: percentile(values, 95),
  min: Math.min(...values),
  max: Math.max(...values),
});

export const sum = (values: readonly number[]): number => values.reduce((t, v) => t + v, 0);

/** Adds `n` to `counts[key]`: statuses, operations, bases. */
export const tally = <K extends string>(counts: Record<K, number>, key: K, n = 1): number => (counts[key] = (counts[key] ?? 0) + n);
