import { DEMO_PREFIX, isDemoSlug } from '../../../core/slug.ts';
import type { Overdue } from '../../../ports/view-records.ts';
import type { OpsReads } from './reads.ts';

/** What may be stuck (docs/operations.md, "Stuck work"). */
export type StuckKind = 'presentation' | 'offer' | 'delivery' | 'lane' | 'request' | 'approval';

/** One piece of work past the time it should have moved by. */
export interface StuckRow extends Overdue {
  kind: StuckKind;
}

/** Where each kind of stuck work is read: the owner's view of what is past its time, of one tenant or all. */
const STUCK_READS: Record<StuckKind, (r: OpsReads, tenant: string | null, before: number, limit: number) => Promise<Overdue[]>> =
  {
    presentation: (r, tenant, before, limit) => r.verification.expiredTransactions(tenant, before, limit),
    offer: (r, tenant, before, limit) => r.offers.unerasedSubjects(tenant, before, limit),
    delivery: (r, tenant, before, limit) => r.webhooks.overdueDeliveries(tenant, before, limit),
    lane: (r, tenant, before, limit) => r.webhooks.heldLanes(tenant, before, limit),
    // The data-subject requests are the platform's: none is a tenant's.
    request: async (r, tenant, before, limit) => (tenant === null ? r.own.overdueRequests(before, limit) : []),
    approval: (r, tenant, before, limit) => r.approvals.overdue(tenant, before, limit),
  };

/** Work of one kind past its time by more than its grace, oldest first, at most `limit`; of one tenant or all. */
export async function stuck(
  reads: OpsReads,
  kind: StuckKind,
  tenant: string | null,
  before: number,
  limit: number,
): Promise<StuckRow[]> {
  return (await STUCK_READS[kind](reads, tenant, before, limit)).map((r) => ({ kind, ...r }));
}

/** A breach of the demo-tenant law found in the data (docs/tenants.md). */
export interface DemoBreach {
  rule: 'demo-name' | 'marked-real' | 'demo-item-flag';
  tenant: string;
  /** The rows that break it (items), or the name that does. */
  subject: string;
}

/** Breaches of the demo-tenant law, at most `limit`: the tenants' names first, then the wallet items' marks. */
export async function demoBreaches(reads: OpsReads, limit: number): Promise<DemoBreach[]> {
  const breaches: DemoBreach[] = [];
  const marked = (text: string | null) => text !== null && /\(demo\)\s*$/i.test(text);
  for (const t of await reads.tenants.names()) {
    const demo = t.slug.startsWith('demo-');
    if (demo && (!t.name.endsWith(' (Demo)') || (t.displayName !== null && !t.displayName.endsWith(' (Demo)')))) {
      breaches.push({ rule: 'demo-name', tenant: t.slug, subject: t.displayName ?? t.name });
    }
    if (!demo && (marked(t.name) || marked(t.displayName)))
      breaches.push({ rule: 'marked-real', tenant: t.slug, subject: t.displayName ?? t.name });
  }
  for (const i of await reads.wallet.demoMarkMismatches(limit))
    breaches.push({ rule: 'demo-item-flag', tenant: i.tenant, subject: i.id });
  return breaches.slice(0, limit);
}

/** The deployment's demonstration tenants (slug `demo-…`). */
export async function demoTenants(reads: Pick<OpsReads, 'tenants'>): Promise<string[]> {
  return (await reads.tenants.slugsStartingWith(DEMO_PREFIX)).filter(isDemoSlug);
}
