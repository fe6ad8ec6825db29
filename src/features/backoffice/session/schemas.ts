import { type TSchema, Type } from '@sinclair/typebox';
import { idLikePattern } from '../../../core/ids.ts';
import { ApprovalSchema } from '../../../http/admin/approval-desk.ts';
import { DateTimeView, Nullable } from '../../../http/schemas/common.ts';
import { TIMELINE_SOURCES } from '../../../ports/backoffice-views.ts';
import { CredentialView } from '../credentials/schemas.ts';

/** Schemas of the session group (docs/backoffice/views.md). */

/** A status list's sequence number, as in its address `<issuer>/status/<seq>`. */
export const ListSeq = Type.String({
  pattern: '^[1-9][0-9]{0,8}$',
  description: 'The status list number (the last segment of status.uri).',
});

/** Free text in a query: no control characters. */
export const QueryText = (minLength: number) =>
  Type.String({ minLength, maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]*$' });

/** A timeline's subject: an account id (43 base64url characters), a credential id or an offer id. */
export const Subject = Type.String({
  pattern: `^(?:[A-Za-z0-9_-]{43}|${idLikePattern('credential').slice(1, -1)}|${idLikePattern('offer').slice(1, -1)})$`,
});

export const MeView = Type.Object({
  username: Nullable(Type.String()),
  via: Type.String(),
  roles: Type.Array(Type.String()),
  tenant: Nullable(Type.String()),
  pendingApprovals: Type.Array(ApprovalSchema),
});

export const SearchView = Type.Object({
  q: Type.String(),
  tenant: Nullable(Type.String()),
  tenants: Type.Array(Type.Object({ slug: Type.String(), name: Type.String() })),
  types: Type.Array(Type.Object({ tenant: Type.String(), typeId: Type.String(), name: Type.String() })),
  credentials: Type.Array(CredentialView),
  holders: Type.Array(Type.Object({ accountId: Type.String(), tenant: Type.String() })),
  partners: Type.Array(
    Type.Object({
      applicationId: Type.String(),
      organisation: Type.String(),
      kind: Type.String(),
      stage: Type.String(),
      tenant: Nullable(Type.String()),
    }),
  ),
  operators: Type.Array(
    Type.Object({
      username: Type.String(),
      roles: Type.Array(Type.String()),
      tenant: Nullable(Type.String()),
      status: Type.String(),
    }),
  ),
  truncated: Type.Array(Type.String({ description: 'Kinds with more hits than shown.' })),
  omitted: Type.Array(Type.String({ description: 'Kinds the caller may not read, so not searched.' })),
});

const Section = <T extends TSchema>(item: T) => Type.Optional(Type.Object({ count: Type.Integer(), top: Type.Array(item) }));

export const TodayView = Type.Object({
  tenant: Nullable(Type.String()),
  at: DateTimeView,
  approvals: Section(ApprovalSchema),
  deadDeliveries: Section(
    Type.Object({
      deliveryId: Type.String(),
      webhookId: Type.String(),
      tenant: Type.String(),
      eventType: Type.String(),
      failures: Type.Integer(),
      lastStatus: Nullable(Type.Integer()),
      finishedAt: Nullable(DateTimeView),
    }),
  ),
  provisioning: Section(
    Type.Object({
      requestId: Type.String(),
      tenant: Type.String(),
      label: Type.String(),
      requestedBy: Type.String(),
      createdAt: DateTimeView,
      expiresAt: DateTimeView,
    }),
  ),
  partnersInReview: Section(
    Type.Object({
      applicationId: Type.String(),
      organisation: Type.String(),
      kind: Type.String(),
      stage: Type.String(),
      stageAt: DateTimeView,
    }),
  ),
  expiringOffers: Section(
    Type.Object({
      offerId: Type.String(),
      tenant: Type.String(),
      typeId: Type.String(),
      createdAt: DateTimeView,
      expiresAt: DateTimeView,
    }),
  ),
  omitted: Type.Array(Type.String({ description: 'Sections the caller may not read.' })),
});

const LookupMatch = Type.Object({
  kind: Type.String({ description: 'holder, credential, offer, deposit, transaction or item' }),
  id: Type.String(),
  tenant: Type.String(),
  accountId: Nullable(Type.String()),
  typeId: Nullable(Type.String()),
  state: Nullable(Type.String()),
  at: Nullable(DateTimeView),
});

export const LookupView = Type.Object({ q: Type.String(), tenant: Nullable(Type.String()), matches: Type.Array(LookupMatch) });

export const TimelineEntryView = Type.Object({
  at: DateTimeView,
  source: Type.String({ description: TIMELINE_SOURCES.join(', ') }),
  what: Type.String(),
  tenant: Nullable(Type.String()),
  ref: Type.String(),
  actor: Nullable(Type.String()),
  detail: Type.Record(Type.String(), Type.Unknown()),
});

export const OffboardingEntry = Type.Object({
  kind: Type.String({ description: 'tenant or operator' }),
  id: Type.String({ description: "The tenant's slug or the operator's username." }),
  status: Type.String({ description: 'suspended or removed' }),
  tenant: Nullable(Type.String()),
  since: DateTimeView,
  reason: Nullable(Type.String()),
});
