/**
 * Counts per UTC day, as the owners of counted rows publish them for the back office's analytics
 * (docs/backoffice/audit.md, "Analytics"): each owner counts its own rows, the back office rolls
 * the days up.
 */

/** The window and narrowing of a count: milliseconds, since inclusive, until exclusive. */
export interface CountWindow {
  since: number;
  until: number;
  tenant: string | null;
  typeId: string | null;
}

/** Counts of one UTC day (days since the epoch) for one tenant, or one tenant and type. */
export interface DayCount {
  day: number;
  tenant: string;
  typeId: string | null;
  n: number;
}
