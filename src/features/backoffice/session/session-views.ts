import type { Clock } from '../../../core/clock.ts';
import { REVIEW_STAGES } from '../../../core/partner-pipeline.ts';
import type { ApprovalDesk } from '../../../http/admin/approval-desk.ts';
import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import { holds } from '../../../http/admin/role-matrix.ts';
import type { OperatorPrincipal } from '../../../http/auth/operator-bearer.ts';
import type { ApprovalsViews } from '../../../ports/approvals-views.ts';
import type { OffersViews } from '../../../ports/offers-views.ts';
import type { PartnersViews } from '../../../ports/partners-views.ts';
import type { WebhooksViews } from '../../../ports/webhooks-views.ts';

/** Entries per section of the day's list. */
const TODAY_TOP = 5;
/** Approvals the caller could decide, counted up to this many. */
const APPROVALS_COUNTED = 100;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Provisioning requests are the desk's `token.mint` approvals (docs/integration.md). */
const PROVISIONING = 'token.mint';

/** What the day's list reads of other modules' tables: each owner's published views. */
export interface AttentionReads {
  webhooks: WebhooksViews;
  approvals: ApprovalsViews;
  partners: PartnersViews;
  offers: OffersViews;
}

/**
 * The day's list (docs/backoffice/views.md; the search box is search-box.ts): it reads across
 * groups, so it shows a caller only the sections its roles read elsewhere in the matrix, narrowed
 * to `tenant` (a scoped caller's own), and names what it left out.
 */
export class SessionViews {
  constructor(
    private readonly attention: AttentionReads,
    private readonly desk: ApprovalDesk,
    private readonly clock: Clock,
  ) {}

  async today(principal: OperatorPrincipal, tenant: string | null) {
    const now = this.clock.now();
    const omitted: string[] = [];
    const section = async <T>(name: string, allowed: boolean, read: () => Promise<T>): Promise<T | undefined> => {
      if (allowed) return read();
      omitted.push(name);
      return undefined;
    };
    const integration = holds(principal, 'integrationRead');
    const [approvals, deadDeliveries, provisioning, partnersInReview, expiringOffers] = await Promise.all([
      section('approvals', holds(principal, 'approvalsWrite'), async () => {
        const pending = (await this.desk.pendingFor(principal, APPROVALS_COUNTED)).filter(
          (a) => tenant === null || a.tenant === tenant,
        );
        return { count: pending.length, top: pending.slice(0, TODAY_TOP) };
      }),
      section('deadDeliveries', integration, async () => {
        const found = await this.attention.webhooks.deadDeliveries(tenant, TODAY_TOP);
        return { count: found.count, top: found.top.map((d) => ({ ...d, finishedAt: isoOrNull(d.finishedAt) })) };
      }),
      section('provisioning', integration, async () => {
        const found = await this.attention.approvals.pending(PROVISIONING, tenant, now, TODAY_TOP);
        return {
          count: found.count,
          top: found.top.map((p) => ({
            requestId: p.id,
            tenant: p.tenant ?? '',
            label: String(p.params.label ?? ''),
            requestedBy: p.requestedBy,
            createdAt: iso(p.requestedAt),
            expiresAt: iso(p.expiresAt),
          })),
        };
      }),
      // Applications have no tenant before they are linked: a platform-wide reader's, unnarrowed.
      section('partnersInReview', holds(principal, 'partnersRead') && tenant === null, async () => {
        const found = await this.attention.partners.inStages(REVIEW_STAGES, TODAY_TOP);
        return { count: found.count, top: found.top.map((p) => ({ ...p, stageAt: iso(p.stageAt) })) };
      }),
      section('expiringOffers', holds(principal, 'credentialsRead'), async () => {
        const found = await this.attention.offers.expiringUnused(tenant, now, now + DAY_MS, TODAY_TOP);
        return {
          count: found.count,
          top: found.top.map((o) => ({
            offerId: o.id,
            tenant: o.tenant,
            typeId: o.typeId,
            createdAt: iso(o.createdAt),
            expiresAt: iso(o.expiresAt),
          })),
        };
      }),
    ]);
    return {
      tenant,
      at: iso(now),
      ...(approvals ? { approvals } : {}),
      ...(deadDeliveries ? { deadDeliveries } : {}),
      ...(provisioning ? { provisioning } : {}),
      ...(partnersInReview ? { partnersInReview } : {}),
      ...(expiringOffers ? { expiringOffers } : {}),
      omitted,
    };
  }
}
