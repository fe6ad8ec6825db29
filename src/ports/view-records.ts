/**
 * Record shapes that several owners' views answer alike (docs/architecture.md, "Tables, owners
 * and views"): a count with the first rows, counts per tenant and type, a funnel, work past its
 * time. Times are milliseconds.
 */

/** How many rows a read finds, and the first of them. */
export interface Counted<T> {
  count: number;
  top: T[];
}

/** Rows of one tenant and type counted, with the earliest time among them. */
export interface TypeCount {
  tenant: string;
  typeId: string;
  count: number;
  firstAt: number;
}

/** One funnel of a tenant and type: its steps' counts, in order (offer, token, credential; request, response, accepted). */
export interface FunnelRow {
  tenant: string;
  typeId: string;
  steps: [number, number, number];
}

/** A row past the time it should have moved by (tenant null: the platform's). */
export interface Overdue {
  id: string;
  tenant: string | null;
  dueAt: number;
}

/** What a list is narrowed by: one tenant (null: every tenant) and a time window (since inclusive, until exclusive). */
export interface TenantWindow {
  tenant: string | null;
  since?: number | undefined;
  until?: number | undefined;
}

/** An account known to one tenant. */
export interface AccountInTenant {
  accountId: string;
  tenant: string;
}

/** A credential type, named by its tenant and typeId. */
export interface TypeRef {
  tenant: string;
  typeId: string;
}

/**
 * Where a page of rows in (time, id) descending order starts: before the time (`lt`), at or
 * before it (`le`), or before the pair (`tie`). A list merged from several owners' rows pages each
 * owner's part by it.
 */
export type TimeKeyset = { op: 'lt' | 'le'; at: number } | { op: 'tie'; at: number; id: string };

/** How many rows one tenant has. */
export interface TenantCount {
  tenant: string;
  count: number;
}
