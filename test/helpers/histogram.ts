// A Prometheus histogram's sample count, and how many of its samples fall at or under one bucket's
// bound, read from the text of /metrics.
export function histogramCounts(text: string, name: string, le: string): { count: number; upTo: number } {
  const num = (re: RegExp) => Number(text.match(re)?.[1] ?? NaN);
  const bound = le.replace(/[.+]/g, (c) => `\\${c}`);
  return { count: num(new RegExp(`^${name}_count (\\d+)$`, 'm')), upTo: num(new RegExp(`^${name}_bucket\\{le="${bound}"\\} (\\d+)$`, 'm')) };
}
