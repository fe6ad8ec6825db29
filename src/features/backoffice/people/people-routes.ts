import { Type } from '@sinclair/typebox';
import { adminRoute, LIST_SCOPE, ListPage, ListQuery, listParams } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteDef } from '../../../http/route.ts';
import { AccountId, AdminMutation, errorResponse, OPERATOR_ERRORS } from '../../../http/schemas/common.ts';
import { Proposal, Tier } from '../../membership/schemas.ts';
import type { PeopleViews } from './people-views.ts';
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
const BASE = '/api/admin/people';

/** Members, governance, the coin ledger, consent and the economy (docs/backoffice/people.md). */
export function peopleRoutes(views: PeopleViews): RouteDef[] {
  const list = { ...adminRoute(DOC), scope: LIST_SCOPE } as const;
  return [
    defineRoute({
      ...list,
      method: 'GET',
      path: `${BASE}/members`,
      roles: ROLE_MATRIX.peopleRead,
      summary: 'Members of every programme, newest enrolment first; filter by tenant, status and tier.',
      querystring: ListQuery({ status: Type.Optional(MemberStatus), tier: Type.Optional(Tier) }),
      responses: { 200: { description: 'A page of members.', schema: ListPage('members', MemberRowView) }, ...OPERATOR_ERRORS },
      handler: async (request) => {
        const { status, tier } = request.query;
        return views.memberList(listParams(request), { ...(status ? { status } : {}), ...(tier ? { tier } : {}) });
      },
    }),
    defineRoute({
      ...list,
      method: 'GET',
      path: `${BASE}/governance`,
      roles: ROLE_MATRIX.governanceRead,
      summary: 'Proposals of every programme, newest first, closed ones with their tally; filter by tenant and state.',
      querystring: ListQuery({ state: Type.Optional(ProposalState) }),
      responses: { 200: { description: 'A page of proposals.', schema: ListPage('proposals', Proposal) }, ...OPERATOR_ERRORS },
      handler: async (request) => {
        const { state } = request.query;
        return views.proposals(listParams(request), state ? { state } : {});
      },
    }),
    defineRoute({
      ...adminRoute(DOC),
      method: 'POST',
      path: `${BASE}/governance`,
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
        404: errorResponse('unknown_tenant or unknown_proposal'),
        409: errorResponse('proposal_state'),
      },
      handler: async (request, reply) => {
        const body = request.body;
        const answer = await views.governance(body, operatorActor(operatorOf(request)));
        return reply.code(body.action === 'create' ? 201 : 200).send(answer);
      },
    }),
    defineRoute({
      ...list,
      method: 'GET',
      path: `${BASE}/coin-ledger`,
      roles: ROLE_MATRIX.peopleRead,
      summary: 'Coin entries of every programme, newest first; filter by tenant and account.',
      querystring: ListQuery({ accountId: Type.Optional(AccountId) }),
      responses: {
        200: { description: 'A page of coin entries.', schema: ListPage('entries', CoinEntryView) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) => {
        const { accountId } = request.query;
        return views.coinLedger(listParams(request), accountId ? { accountId } : {});
      },
    }),
    defineRoute({
      ...list,
      method: 'GET',
      path: `${BASE}/consent`,
      roles: ROLE_MATRIX.peopleRead,
      summary:
        'What holders share with which tenant, per wallet item: element names only; filter by the tenant shared with and account.',
      querystring: ListQuery({ accountId: Type.Optional(AccountId) }),
      responses: {
        200: { description: 'A page of sharing settings.', schema: ListPage('consents', ConsentView) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) => {
        const { accountId } = request.query;
        return views.consent(listParams(request), accountId ? { accountId } : {});
      },
    }),
    defineRoute({
      ...list,
      method: 'GET',
      path: `${BASE}/economy`,
      roles: ROLE_MATRIX.economy,
      summary: 'Per tenant: coins issued, spent and outstanding, and its members.',
      querystring: ListQuery(),
      responses: { 200: { description: 'One row per tenant.', schema: ListPage('tenants', EconomyView) }, ...OPERATOR_ERRORS },
      handler: async (request) => views.economy(listParams(request)),
    }),
  ];
}
