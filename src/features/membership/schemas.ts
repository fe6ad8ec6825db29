import { Type } from '@sinclair/typebox';
import { idPattern } from '../../core/ids.ts';
import { DisplayName } from '../../http/schemas/common.ts';

/** Schemas of governance that the membership routes and the back office's people group share. */

export const Tier = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,31}$', description: 'A tier name of the programme.' });
export const ProposalId = Type.String({ pattern: idPattern('proposal') });
export const Option = DisplayName(100);
const DateTime = Type.String({ format: 'date-time', maxLength: 40 });

/** The fields of a proposal action besides `tenant` and `action` (docs/membership.md). */
export const PROPOSAL_FIELDS = {
  proposalId: Type.Optional(ProposalId),
  title: Type.Optional(DisplayName(200)),
  options: Type.Optional(Type.Array(Option, { minItems: 2, maxItems: 16 })),
  tiers: Type.Optional(Type.Array(Tier, { minItems: 1, maxItems: 16 })),
  opensAt: Type.Optional(DateTime),
  closesAt: Type.Optional(DateTime),
};

export const Tally = Type.Object({
  total: Type.Integer(),
  assisted: Type.Integer(),
  options: Type.Array(Type.Object({ option: Type.String(), votes: Type.Integer(), assisted: Type.Integer() })),
});

export const Proposal = Type.Object({
  proposalId: Type.String(),
  tenant: Type.String(),
  title: Type.String(),
  options: Type.Array(Type.String()),
  tiers: Type.Union([Type.Array(Type.String()), Type.Null()]),
  opensAt: Type.String({ format: 'date-time' }),
  closesAt: Type.String({ format: 'date-time' }),
  state: Type.String(),
  votesCast: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  openedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  closedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  tally: Type.Optional(Tally),
});

/** A member as every plane answers it. */
export const Member = Type.Object({
  tenant: Type.String(),
  accountId: Type.String(),
  displayName: Type.Union([Type.String(), Type.Null()]),
  tier: Type.String(),
  status: Type.String(),
  balance: Type.Integer(),
  joinedAt: Type.String({ format: 'date-time' }),
});
