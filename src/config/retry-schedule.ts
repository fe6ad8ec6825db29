import { ConfigError } from './env.ts';

/** Seven retries over about a day: 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h (docs/webhooks.md). */
export const DEFAULT_RETRY_SCHEDULE = '10s,1m,5m,30m,2h,6h,12h';
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `10s,1m,5m`: the delay before each retry; the count is the number of retries (1 to 20, each up to 7 days). */
export function retrySchedule(raw: string, variable = 'OPENRAIL_WEBHOOK_RETRY_SCHEDULE'): number[] {
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length < 1 || parts.length > 20) throw new ConfigError(variable, 'must list 1 to 20 delays');
  return parts.map((part) => {
    const match = /^(\d{1,6})(ms|s|m|h|d)$/.exec(part);
    const ms = match ? Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? 0) : 0;
    if (!match || ms < 1 || ms > 7 * 86_400_000) {
      throw new ConfigError(variable, `must be comma-separated delays such as 10s,1m,5m,2h (got "${part}")`);
    }
    return ms;
  });
}
