// Small numeric helpers shared by the benchmark files.

/** Nearest-rank percentile of an ascending array (ms in, ms out, rounded to 0.01). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[i] * 100) / 100;
}

export const round = (n: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

export const mb = (kb: number): number => round(kb / 1024, 1);
