import { Type } from '@sinclair/typebox';
import { adminRoute, iso, isoOrNull } from '../../../http/admin/kit.ts';
import { adminOperations } from '../../../http/admin/operations.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteDef } from '../../../http/route.ts';
import { AccountId, AdminMutation, OPERATOR_ERRORS, refusal } from '../../../http/schemas/common.ts';
import type { ProposalRecord } from '../../../ports/membership-store.ts';
import type { MembershipViews, OptionCount } from '../../../ports/membership-views.ts';
import type { TenantsViews } from '../../../ports/tenants-views.ts';
import type { WalletViews } from '../../../ports/wallet-views.ts';
import { type MembershipService, proposalView } from '../../membership/membership-service.ts';
import { Proposal, Tier } from '../../membership/schemas.ts';
import {
  CoinEntryView,
  ConsentView,
  EconomyView,
  GovernanceBody,
  MemberRowView,
  MemberStatus,
  ProposalState,
} from './schemas.ts';

const DOC = 'docs/backoffice/people.md';

/** The owners' views the people lists read: membership's members, coins and governance, the wallet's sharing, the tenants. */
export interface PeopleSources {
  membership: Pick<MembershipViews, 'members' | 'coinEntries' | 'proposals' | 'optionCounts' | 'economies'>;
  wallet: Pick<WalletViews, 'consent'>;
  tenants: Pick<TenantsViews, 'slugs'>;
}

/**
 * Members, governance, the coin ledger, consent and the economy across tenants
 * (docs/backoffice/people.md): the lists are the owners' published views; governance changes are
 * the membership service's own use cases (docs/membership.md).
 */
export function peopleRoutes({ membership, wallet, tenants }: PeopleSources, members: MembershipService): RouteDef[] {
  const { list } = adminOperations({ doc: DOC, base: '/api/admin/people', read: 'peopleRead' });
  return [
    list('/members', {
      summary: 'Members of every programme, newest enrolment first; filter by tenant, status and tier.',
      filters: { status: Type.Optional(MemberStatus), tier: Type.Optional(Tier) },
      page: ['members', MemberRowView, 'A page of members.'],
      cursor: ['number', 'string', 'string'],
      read: ({ after, limit, ...filter }) => membership.members(filter, limit, after),
      order: (m) => [m.joinedAt, m.tenant, m.accountId],
      view: (m) => ({
        tenant: m.tenant,
        accountId: m.accountId,
        tier: m.tier,
        status: m.status,
        balance: m.balance,
        enrolledAt: iso(m.joinedAt),
      }),
    }),
    list('/governance', {
      roles: 'governanceRead',
      summary: 'Proposals of every programme, newest first, closed ones with their tally; filter by tenant and state.',
      filters: { state: Type.Optional(ProposalState) },
      page: ['proposals', Proposal, 'A page of proposals.'],
      cursor: ['number', 'string'],
      read: ({ after, limit, ...filter }) => membership.proposals(filter, limit, after),
      order: (r) => [r.createdAt, r.id],
      // A closed one with its tally, as POST /api/proposals `show` gives it.
      views: async (rows) => {
        const counts = await membership.optionCounts(rows.filter((r) => r.state === 'closed').map((r) => r.id));
        return rows.map((r) => proposalView(r, r.state === 'closed' ? tally(r, counts) : undefined));
      },
    }),
    defineRoute({
      ...adminRoute(DOC),
      method: 'POST',
      path: '/api/admin/people/governance',
      roles: ROLE_MATRIX.governanceWrite,
      scope: { tenantIn: 'body' },
      summary: 'Create a draft proposal, open it or close it (with its tally): the use cases of POST /api/proposals.',
      body: GovernanceBody,
      responses: {
        200: {
          description: 'open or close: the proposal; its tally once closed.',
          schema: AdminMutation({ proposal: Proposal }),
        },
        201: { description: 'create: the draft.', schema: AdminMutation({ proposal: Proposal }) },
        ...OPERATOR_ERRORS,
        404: refusal(['unknown_tenant', 'unknown_proposal']),
        409: refusal('proposal_state'),
      },
      handler: async (request, reply) => {
        const { proposal, auditSeq } = await members.changeProposal(request.body, operatorActor(operatorOf(request)));
        return reply.code(request.body.action === 'create' ? 201 : 200).send({ ok: true as const, auditSeq, proposal });
      },
    }),
    list('/coin-ledger', {
      summary: 'Coin entries of every programme, newest first; filter by tenant and account.',
      filters: { accountId: Type.Optional(AccountId) },
      page: ['entries', CoinEntryView, 'A page of coin entries.'],
      cursor: ['number', 'string'],
      read: ({ after, limit, ...filter }) => membership.coinEntries(filter, limit, after),
      order: (e) => [e.createdAt, e.id],
      view: (e) => ({
        entryId: e.id,
        tenant: e.tenant,
        accountId: e.accountId,
        delta: e.delta,
        reason: e.reason,
        idempotencyKey: e.idempotencyKey,
        balanceAfter: e.balanceAfter,
        createdAt: iso(e.createdAt),
      }),
    }),
    list('/consent', {
      summary:
        'What holders share with which tenant, per wallet item: element names only; filter by the tenant shared with and account.',
      filters: { accountId: Type.Optional(AccountId) },
      page: ['consents', ConsentView, 'A page of sharing settings.'],
      cursor: ['string', 'string', 'string'],
      read: ({ after, limit, ...filter }) => wallet.consent(filter, limit, after),
      order: (c) => [c.tenant, c.accountId, c.itemId],
      view: (c) => ({ ...c, since: isoOrNull(c.since) }),
    }),
    list('/economy', {
      roles: 'economy',
      summary: 'Per tenant: coins issued, spent and outstanding, and its members.',
      page: ['tenants', EconomyView, 'One row per tenant.'],
      cursor: ['string'],
      // A page of tenants, then their economies in one read; the window applies to the coin entries.
      read: async ({ tenant, since, until, after, limit }) =>
        membership.economies(await tenants.slugs(tenant, after?.[0], limit), { since, until }),
      order: (e) => [e.tenant],
      view: (e) => e,
    }),
  ];
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
