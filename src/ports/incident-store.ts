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

/**
 * The breach register: the platform's, with the read that narrows to one tenant (the incidents
 * touching it). What a scope touches is read from its owners' views (compliance/incidents.ts).
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
}
