import type { Deprecation, RouteDef } from './route.ts';

/** Interface, Limits: a retired promised operation keeps answering at least this long after its announcement. */
export const DEPRECATION_WINDOW_DAYS = 180;

const DAY_MS = 24 * 60 * 60 * 1000;

/** A calendar day `YYYY-MM-DD` as the epoch milliseconds of its start (UTC), or undefined for anything else (2026-02-30 included). */
function dayOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value ? undefined : ms;
}

/**
 * Refuses, when the service starts, a deprecation the interface does not allow: both days real
 * dates, the sunset at least DEPRECATION_WINDOW_DAYS after the announcement, the link an https URL
 * that a Link header can carry.
 */
export function checkDeprecation(route: RouteDef): void {
  const d = route.deprecated;
  if (!d) return;
  const where = `${route.method} ${route.path}: deprecated`;
  const since = dayOf(d.since);
  if (since === undefined) throw new Error(`${where}.since must be a day, YYYY-MM-DD (got ${JSON.stringify(d.since)})`);
  const sunset = dayOf(d.sunset);
  if (sunset === undefined) throw new Error(`${where}.sunset must be a day, YYYY-MM-DD (got ${JSON.stringify(d.sunset)})`);
  if (sunset - since < DEPRECATION_WINDOW_DAYS * DAY_MS) {
    throw new Error(
      `${where}: the sunset ${d.sunset} must be at least ${DEPRECATION_WINDOW_DAYS} days after ${d.since} (Versioning 7)`,
    );
  }
  if (d.link !== undefined && !/^https:\/\/[^\s<>"]+$/.test(d.link)) {
    throw new Error(`${where}.link must be an https URL`);
  }
}

/**
 * What every answer of a deprecated operation carries: `Deprecation` as a structured-field Date
 * (RFC 9745 §2.1, `@` and seconds since the epoch), `Sunset` as an HTTP-date (RFC 8594 §3), and
 * the announcement as `Link` rel="deprecation" (RFC 9745 §3).
 */
export function deprecationHeaders(d: Deprecation): Record<string, string> {
  return {
    deprecation: `@${Math.floor(Date.parse(`${d.since}T00:00:00Z`) / 1000)}`,
    sunset: new Date(`${d.sunset}T00:00:00Z`).toUTCString(),
    ...(d.link ? { link: `<${d.link}>; rel="deprecation"; type="text/html"` } : {}),
  };
}
