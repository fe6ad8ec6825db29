/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** The median of some numbers, in any order (the mean of the middle two when their count is even). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median, 99th percentile and maximum of ascending latencies (ms). */
export function latencySummary(sorted: Float64Array): { p50Ms: number; p99Ms: number; maxMs: number } {
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted.at(-1) ?? Number.NaN };
}

/** A plain text table: a header row, a rule, then the rows; numbers right-aligned. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[], numeric: boolean[]) =>
    r.map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ');
  const numeric = headers.map(
    (_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || /^[\d.,%-]+$/.test(String(r[i]))),
  );
  return [line(headers, numeric), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map((r) => line(r, numeric))].join('\n');
}

export const fixed = (n: number | undefined, digits = 1) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits));
