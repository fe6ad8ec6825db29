import { Type } from '@sinclair/typebox';
import { DateTimeView, DisplayText, Nullable, Slug } from '../../../http/schemas/common.ts';
import { MEMBER_STATUSES } from '../../../ports/membership-store.ts';
import { PROPOSAL_FIELDS } from '../../membership/schemas.ts';
import { OperatorView } from '../../operators/schemas.ts';

/** The schemas of the people group (docs/backoffice/people.md). */

export { Issuer, OperatorStatus, Password, Role, Roles, Subject, Username } from '../../operators/schemas.ts';
export const UsernamePrefix = Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{0,63}$', description: 'A prefix of usernames.' });
/** Why an owner change is asked for: shown on the approval it files. */
export const Reason = DisplayText(500);

/** An operator in the back office's list: its view (docs/operators.md), and when it was made and changed. */
export const OperatorRow = Type.Object({ ...OperatorView.properties, createdAt: DateTimeView, updatedAt: DateTimeView });

export const OperatorDetail = Type.Object({
  ...OperatorRow.properties,
  lockedUntil: Nullable(DateTimeView),
  identity: Nullable(Type.Object({ issuer: Type.String(), subject: Type.String(), linkedAt: DateTimeView })),
  activeSessions: Type.Integer(),
  lastSignInAt: Nullable(DateTimeView),
});

export const MemberStatus = Type.Union(MEMBER_STATUSES.map((s) => Type.Literal(s)));
export const ProposalState = Type.Union([Type.Literal('draft'), Type.Literal('open'), Type.Literal('closed')]);

/** As POST /api/proposals takes it (docs/membership.md), without `show`: reading is GET /people/governance. */
export const GovernanceBody = Type.Object(
  {
    tenant: Slug,
    action: Type.Union([Type.Literal('create'), Type.Literal('open'), Type.Literal('close')]),
    ...PROPOSAL_FIELDS,
  },
  {
    additionalProperties: false,
    description: 'create takes title, options, opensAt, closesAt and optionally tiers; open and close take proposalId.',
  },
);

export const MemberRowView = Type.Object({
  tenant: Type.String(),
  accountId: Type.String(),
  tier: Type.String(),
  status: Type.String(),
  balance: Type.Integer({ description: 'Coins.' }),
  enrolledAt: DateTimeView,
});

export const CoinEntryView = Type.Object({
  entryId: Type.String(),
  tenant: Type.String(),
  accountId: Type.String(),
  delta: Type.Integer(),
  reason: Type.String(),
  idempotencyKey: Type.String(),
  balanceAfter: Type.Integer(),
  createdAt: DateTimeView,
});

export const ConsentView = Type.Object({
  tenant: Type.String({ description: 'The tenant the holder shares with.' }),
  accountId: Type.String(),
  itemId: Type.String(),
  itemTenant: Type.String(),
  itemKind: Type.String(),
  elements: Type.Array(Type.String(), { description: 'Element names; never values.' }),
  channel: Type.String({
    description: 'The channel between the tenant and the account: none, requested, active, declined, revoked.',
  }),
  since: Nullable(DateTimeView),
});

export const EconomyView = Type.Object({
  tenant: Type.String(),
  issued: Type.Integer(),
  spent: Type.Integer(),
  outstanding: Type.Integer(),
  members: Type.Integer(),
  activeMembers: Type.Integer(),
});
