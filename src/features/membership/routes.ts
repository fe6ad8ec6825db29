import { Type } from '@sinclair/typebox';
import { idPattern } from '../../core/ids.ts';
import { holderOf } from '../../http/auth/holder-jws.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { AccountId, DisplayName, DisplayText, OPERATOR_ERRORS, refusal, Slug } from '../../http/schemas/common.ts';
import { TypeId } from '../credential-types/routes.ts';
import type { MembershipService, ProposalBody, UpdateInput } from './membership-service.ts';
import { Member, Option, PROPOSAL_FIELDS, Proposal, ProposalId, Tier } from './schemas.ts';

const TransactionId = Type.String({ pattern: idPattern('transaction') });
const Status = Type.Union([Type.Literal('active'), Type.Literal('suspended'), Type.Literal('erased')]);

const CoinEntry = Type.Object({
  delta: Type.Integer(),
  reason: Type.String(),
  idempotencyKey: Type.String(),
  balanceAfter: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
});

const Vote = Type.Object({
  proposalId: Type.String(),
  tenant: Type.String(),
  option: Type.String(),
  assisted: Type.Boolean(),
  castAt: Type.String({ format: 'date-time' }),
});

const VOTE_REFUSALS = {
  400: refusal(['invalid_request', 'malformed_json', 'unknown_option']),
  403: refusal(['not_a_member', 'member_inactive', 'not_eligible', 'forbidden'], 'forbidden: only on the operator plane.'),
  404: refusal('unknown_proposal'),
  409: refusal(['already_voted', 'proposal_not_open']),
} as const;

const MEMBER_ROLES = ['owner', 'tenant-admin', 'issuer'] as const;
const GOVERNANCE_ROLES = ['owner', 'tenant-admin'] as const;

export function membershipRoutes(members: MembershipService): RouteGroup {
  return {
    name: 'membership',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/api/members/enroll',
        auth: 'operator',
        roles: [...MEMBER_ROLES],
        scope: { tenantIn: 'body' },
        scopes: ['membership'],
        stability: 'unpromised',
        internal: true,
        summary: 'Enrol an account in the tenant’s programme (docs/membership.md).',
        body: Type.Object(
          { tenant: Slug, accountId: AccountId, displayName: Type.Optional(DisplayName(100)), tier: Type.Optional(Tier) },
          {
            additionalProperties: false,
            examples: [
              {
                tenant: 'harbour-rowing-club',
                accountId: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
                displayName: 'Ada Lovelace',
                tier: 'member',
              },
            ],
          },
        ),
        responses: {
          201: { description: 'The new member.', schema: Member },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_tenant'),
          409: refusal('already_member'),
        },
        handler: async (request, reply) =>
          reply.code(201).send(await members.enrolByOperator(request.body, operatorActor(operatorOf(request)))),
      }),
      defineRoute({
        method: 'POST',
        path: '/api/members/update',
        auth: 'operator',
        roles: [...MEMBER_ROLES],
        scope: { tenantIn: 'body' },
        scopes: ['membership'],
        stability: 'unpromised',
        internal: true,
        summary: 'Change a member’s tier, display name or status, or append one coin entry (docs/membership.md).',
        body: Type.Object(
          {
            tenant: Slug,
            accountId: AccountId,
            displayName: Type.Optional(Type.Union([DisplayName(100), Type.Null()])),
            tier: Type.Optional(Tier),
            status: Type.Optional(Status),
            coins: Type.Optional(
              Type.Object(
                {
                  delta: Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000, not: { const: 0 } }),
                  reason: DisplayText(200),
                  idempotencyKey: Type.String({ pattern: '^[A-Za-z0-9._:-]{1,64}$' }),
                },
                { additionalProperties: false },
              ),
            ),
          },
          {
            additionalProperties: false,
            examples: [
              {
                tenant: 'harbour-rowing-club',
                accountId: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
                coins: { delta: -30, reason: 'Spring dinner', idempotencyKey: 'till-7-0042' },
              },
            ],
          },
        ),
        responses: {
          200: {
            description: 'The member after the change; with coins, the ledger entry (the same one again for a replayed key).',
            schema: Type.Object({ member: Member, coinEntry: Type.Optional(CoinEntry) }),
          },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_member'),
          409: refusal(['member_erased', 'insufficient_balance', 'idempotency_conflict']),
        },
        handler: async (request) => members.update(request.body as UpdateInput, operatorActor(operatorOf(request))),
      }),
      defineRoute({
        method: 'POST',
        path: '/api/members/enrolment-types',
        auth: 'operator',
        roles: [...GOVERNANCE_ROLES],
        scope: { tenantIn: 'body' },
        stability: 'unpromised',
        internal: true,
        summary: 'Replace the tenant’s credential types whose accepted presentation enrols the holder (docs/membership.md).',
        body: Type.Object(
          { tenant: Slug, typeIds: Type.Array(TypeId, { maxItems: 16 }) },
          { additionalProperties: false, examples: [{ tenant: 'harbour-rowing-club', typeIds: ['membership-card'] }] },
        ),
        responses: {
          200: {
            description: 'The types that enrol now.',
            schema: Type.Object({ tenant: Type.String(), typeIds: Type.Array(Type.String()) }),
          },
          ...OPERATOR_ERRORS,
          404: refusal(['unknown_tenant', 'unknown_type']),
        },
        handler: async (request) =>
          members.setEnrolmentTypes(request.body.tenant, request.body.typeIds, operatorActor(operatorOf(request))),
      }),
      defineRoute({
        method: 'POST',
        path: '/api/proposals',
        auth: 'operator',
        roles: [...GOVERNANCE_ROLES],
        scope: { tenantIn: 'body' },
        stability: 'unpromised',
        internal: true,
        summary: 'Proposals by action: create a draft, open it, close it (with its tally), or show it (docs/membership.md).',
        body: Type.Object(
          {
            tenant: Slug,
            action: Type.Union([Type.Literal('create'), Type.Literal('open'), Type.Literal('close'), Type.Literal('show')]),
            ...PROPOSAL_FIELDS,
          },
          {
            additionalProperties: false,
            description:
              'create takes title, options, opensAt, closesAt and optionally tiers; open, close and show take proposalId.',
            examples: [
              {
                tenant: 'harbour-rowing-club',
                action: 'create',
                title: 'Buy a second coxed four',
                options: ['Yes', 'No'],
                tiers: ['member', 'senior'],
                opensAt: '2030-03-01T09:00:00Z',
                closesAt: '2030-03-15T18:00:00Z',
              },
            ],
          },
        ),
        responses: {
          200: { description: 'open, close or show: the proposal; its tally once closed.', schema: Proposal },
          201: { description: 'create: the draft.', schema: Proposal },
          ...OPERATOR_ERRORS,
          404: refusal(['unknown_tenant', 'unknown_proposal']),
          409: refusal('proposal_state'),
        },
        handler: async (request, reply) => {
          const body = request.body as ProposalBody;
          const answer = await members.proposal(body, operatorActor(operatorOf(request)));
          return reply.code(body.action === 'create' ? 201 : 200).send(answer);
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/api/proposals/vote',
        auth: 'operator',
        roles: ['owner', 'tenant-admin', 'support'],
        scope: { tenantIn: 'body' },
        stability: 'unpromised',
        internal: true,
        summary: 'Record a member’s vote at a desk, on the member’s behalf: counted as assisted (docs/membership.md).',
        body: Type.Object(
          { tenant: Slug, proposalId: ProposalId, accountId: AccountId, option: Option },
          {
            additionalProperties: false,
            examples: [
              {
                tenant: 'harbour-rowing-club',
                proposalId: 'prop_Q8vN2xLk5mTz7bRc0WsJ4e',
                accountId: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
                option: 'Yes',
              },
            ],
          },
        ),
        responses: {
          201: { description: 'The vote was recorded.', schema: Vote },
          ...OPERATOR_ERRORS,
          ...VOTE_REFUSALS,
        },
        handler: async (request, reply) =>
          reply.code(201).send(await members.vote(request.body, operatorActor(operatorOf(request)), true)),
      }),
      defineRoute({
        method: 'POST',
        path: '/member/enroll',
        auth: 'public',
        stability: 'unpromised',
        summary:
          'Enrol with a completed hosted verification: the holder who presented becomes a member (docs/membership.md). A transaction answered by a wallet on the same device also needs Response-Code: <the response_code its browser brought back>.',
        body: Type.Object(
          { transactionId: TransactionId, resultToken: Type.String({ minLength: 1, maxLength: 128 }) },
          {
            additionalProperties: false,
            examples: [{ transactionId: 'vtx_H2mK8pQ4rT6vX9zB1dF3gJ', resultToken: 'RESULT-TOKEN-FROM-POST-VERIFY-REQUEST' }],
          },
        ),
        responses: {
          201: { description: 'The new member.', schema: Member },
          400: refusal(['invalid_request', 'malformed_json']),
          403: refusal(
            ['type_not_enrolling', 'response_code_required', 'wrong_response_code'],
            'a same-device answer enrols only with the response code its browser brought back.',
          ),
          404: refusal('unknown_transaction', 'unknown, expired, or the result token is wrong.'),
          409: refusal(['verification_pending', 'verification_failed', 'transaction_used', 'already_member']),
        },
        handler: async (request, reply) => {
          const code = request.headers['response-code'];
          const member = await members.enrolByPresentation(
            request.body.transactionId,
            request.body.resultToken,
            typeof code === 'string' ? code : undefined,
          );
          return reply.code(201).send(member);
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/member/vote',
        auth: 'holder',
        stability: 'unpromised',
        summary: 'Vote on an open proposal of a programme the holder belongs to: once (docs/membership.md).',
        body: Type.Object(
          { proposalId: ProposalId, option: Option },
          { additionalProperties: false, examples: [{ proposalId: 'prop_Q8vN2xLk5mTz7bRc0WsJ4e', option: 'Yes' }] },
        ),
        responses: {
          201: { description: 'The vote was recorded.', schema: Vote },
          401: refusal('unauthorized'),
          ...VOTE_REFUSALS,
        },
        handler: async (request, reply) => {
          const accountId = holderOf(request).accountId;
          const vote = await members.vote({ ...request.body, accountId }, { kind: 'holder', accountId }, false);
          return reply.code(201).send(vote);
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/member/me',
        aliases: ['/v1/member/me'],
        auth: 'holder',
        stability: 'promised',
        summary: 'The holder’s memberships, and the open proposals it may vote on (docs/membership.md).',
        responses: {
          200: {
            description: 'Memberships (any status) and open proposals of active memberships whose tier is eligible.',
            schema: Type.Object({
              accountId: Type.String(),
              memberships: Type.Array(Type.Object({ ...Member.properties, tenantName: Type.String() })),
              proposals: Type.Array(
                Type.Object({
                  proposalId: Type.String(),
                  tenant: Type.String(),
                  title: Type.String(),
                  options: Type.Array(Type.String()),
                  opensAt: Type.String({ format: 'date-time' }),
                  closesAt: Type.String({ format: 'date-time' }),
                  voted: Type.Boolean(),
                }),
              ),
            }),
          },
          401: refusal('unauthorized'),
        },
        handler: async (request) => members.me(holderOf(request).accountId),
      }),
    ],
  };
}
