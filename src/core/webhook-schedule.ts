/**
 * When a failed webhook delivery is tried again (docs/webhooks.md, "Retries"). The schedule lists
 * the delay before each retry (OPENRAIL_WEBHOOK_RETRY_SCHEDULE); a delivery whose retries are all
 * spent is dead-lettered. Each delay is shortened by up to a fifth at random, so endpoints that
 * failed together do not all retry at the same instant, and no retry comes later than written.
 */
export function nextAttemptAt(schedule: readonly number[], failedAttempts: number, now: number, random: number): number | null {
  const delay = schedule[failedAttempts - 1];
  if (delay === undefined) return null;
  return now + Math.round(delay * (1 - 0.2 * random));
}

/** Dead-lettered deliveries in a row, without a success between them, after which an endpoint is disabled. */
export const DISABLE_AFTER_DEAD_LETTERS = 3;
