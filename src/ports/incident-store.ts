import type { PageWindow } from '../core/page.ts';

/** The breach register (docs/backoffice/compliance.md, "Incidents"): the platform's, of no one tenant. */

export const INCIDENT_STATES = ['open', 'assessed', 'notified', 'closed'] as const;
export type IncidentState = (typeof INCIDENT_STATES)[number];
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** What the affected scope is computed from: a window of issuance, narrowed by tenants, signing keys or types. */
export interface IncidentScope {
  since: number;
  /** Undefined: up to the moment it is computed. */
  until?: number | undefined;
  tenants?: string[] | undefined;
  keys?: { tenant: string; kid: string }[] | undefined;
  types?: { tenant: string; typeId: string }[] | undefined;
}

export interface IncidentRecord {
  id: string;
  title: string;
  description: string | null;
  severity: Severity;
  state: IncidentState;
  scope: IncidentScope;
  detectedAt: number;
  openedAt: number;
  openedBy: string;
  updatedAt: number;
  assessedAt: number | null;
  notifiedAt: number | null;
  closedAt: number | null;
}

/** What a scope touches, per tenant. */
export interface AffectedTenant {
  tenant: string;
  credentials: number;
  revoked: number;
  accounts: number;
}

/**
 * The breach register: the platform's, with the reads that narrow to one tenant (the incidents
 * touching it, what they touch of it).
 * @tenantOwned
 */
export interface IncidentStore {
  add(incident: IncidentRecord): Promise<void>;
  get(id: string): Promise<IncidentRecord | undefined>;
  /** Incidents newest detected first ([detectedAt, id] descending), detected within the window. */
  list(
    filter: { state?: IncidentState | undefined; severity?: Severity | undefined },
    page: PageWindow<readonly [number, string]>,
  ): Promise<IncidentRecord[]>;
  /** Writes the changed fields while the incident is still in `from`; false otherwise (one conditional write). */
  update(id: string, from: IncidentState, change: Partial<IncidentRecord>): Promise<boolean>;
  /** Incidents whose scope names the tenant or no tenant at all, newest detected first, at most `limit`. */
  touching(tenant: string, limit: number): Promise<IncidentRecord[]>;
  /**
   * The credentials the scope touches, counted per tenant: issued in the window (until `now` when
   * it is open), of the tenants and types named, and, where keys are named, issued while one of
   * them was its tenant's issuing key; with how many are revoked and how many holders they have.
   */
  affected(scope: IncidentScope, now: number): Promise<AffectedTenant[]>;
}
