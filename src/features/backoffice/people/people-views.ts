import type { Actor } from '../../../core/actor.ts';
import { cursorOf, iso, isoOrNull, type ListParams, page, windowOf } from '../../../http/admin/kit.ts';
import type { ProposalRecord } from '../../../ports/membership-store.ts';
import type { MembershipViews, OptionCount } from '../../../ports/membership-views.ts';
import type { TenantsViews } from '../../../ports/tenants-views.ts';
import type { WalletViews } from '../../../ports/wallet-views.ts';
import { type MembershipService, type ProposalBody, proposalView } from '../../membership/membership-service.ts';

/** The owners' views the people lists read: membership's members, coins and governance, the wallet's sharing, the tenants. */
export interface PeopleSources {
  membership: Pick<MembershipViews, 'members' | 'coinEntries' | 'proposals' | 'optionCounts' | 'economies'>;
  wallet: Pick<WalletViews, 'consent'>;
  tenants: Pick<TenantsViews, 'slugs'>;
}

/**
 * Members, governance, the coin ledger, consent and the coin economy across tenants
 * (docs/backoffice/people.md). The lists are the owners' published views; governance changes are
 * the membership service's own use cases (docs/membership.md).
 */
export class PeopleViews {
  constructor(
    private readonly sources: PeopleSources,
    private readonly members: MembershipService,
  ) {}

  async memberList(p: ListParams, filter: { status?: string; tier?: string }) {
    const after = cursorOf(p.after, ['number', 'string', 'string']);
    const rows = await this.sources.membership.members({ ...window(p), ...filter }, p.limit + 1, after);
    const shown = page(
      rows,
      p.limit,
      (m) => [m.joinedAt, m.tenant, m.accountId],
      (m) => ({
        tenant: m.tenant,
        accountId: m.accountId,
        tier: m.tier,
        status: m.status,
        balance: m.balance,
        enrolledAt: iso(m.joinedAt),
      }),
    );
    return { members: shown.rows, nextCursor: shown.nextCursor };
  }

  async coinLedger(p: ListParams, filter: { accountId?: string }) {
    const after = cursorOf(p.after, ['number', 'string']);
    const rows = await this.sources.membership.coinEntries({ ...window(p), ...filter }, p.limit + 1, after);
    const shown = page(
      rows,
      p.limit,
      (e) => [e.createdAt, e.id],
      (e) => ({
        entryId: e.id,
        tenant: e.tenant,
        accountId: e.accountId,
        delta: e.delta,
        reason: e.reason,
        idempotencyKey: e.idempotencyKey,
        balanceAfter: e.balanceAfter,
        createdAt: iso(e.createdAt),
      }),
    );
    return { entries: shown.rows, nextCursor: shown.nextCursor };
  }

  async consent(p: ListParams, filter: { accountId?: string }) {
    const after = cursorOf(p.after, ['string', 'string', 'string']);
    const rows = await this.sources.wallet.consent({ ...window(p), ...filter }, p.limit + 1, after);
    const shown = page(
      rows,
      p.limit,
      (c) => [c.tenant, c.accountId, c.itemId],
      (c) => ({ ...c, since: isoOrNull(c.since) }),
    );
    return { consents: shown.rows, nextCursor: shown.nextCursor };
  }

  async economy(p: ListParams) {
    const after = cursorOf(p.after, ['string'])?.[0];
    // A page of tenants, then their economies in one read; the window applies to the coin entries.
    const tenants = await this.sources.tenants.slugs(p.tenant, after, p.limit + 1);
    const rows = await this.sources.membership.economies(tenants, windowOf(p));
    const shown = page(
      rows,
      p.limit,
      (e) => [e.tenant],
      (e) => e,
    );
    return { tenants: shown.rows, nextCursor: shown.nextCursor };
  }

  /** Proposals, newest first; a closed one with its tally, as POST /api/proposals `show` gives it. */
  async proposals(p: ListParams, filter: { state?: string }) {
    const after = cursorOf(p.after, ['number', 'string']);
    const rows = await this.sources.membership.proposals({ ...window(p), ...filter }, p.limit + 1, after);
    const shown = rows.slice(0, p.limit);
    const counts = await this.sources.membership.optionCounts(shown.filter((r) => r.state === 'closed').map((r) => r.id));
    const answered = page(
      rows,
      p.limit,
      (r) => [r.createdAt, r.id],
      (r) => proposalView(r, r.state === 'closed' ? tally(r, counts) : undefined),
    );
    return { proposals: answered.rows, nextCursor: answered.nextCursor };
  }

  /** POST /api/proposals' create, open and close, by the membership service, with their audit entry. */
  async governance(body: ProposalBody & { action: 'create' | 'open' | 'close' }, actor: Actor) {
    const { proposal, auditSeq } = await this.members.changeProposal(body, actor);
    return { ok: true as const, auditSeq, proposal };
  }
}

function window(p: ListParams) {
  return {
    tenant: p.tenant,
    ...windowOf(p),
  };
}

/** The tally of a closed proposal, in its option order (docs/membership.md, "Tallies"). */
function tally(p: ProposalRecord, counts: readonly OptionCount[]) {
  const options = p.options.map((option) => {
    const c = counts.find((r) => r.proposalId === p.id && r.option === option);
    return { option, votes: c?.votes ?? 0, assisted: c?.assisted ?? 0 };
  });
  return {
    total: options.reduce((n, o) => n + o.votes, 0),
    assisted: options.reduce((n, o) => n + o.assisted, 0),
    options,
  };
}
