import { type Static, Type } from '@sinclair/typebox';
import { DateTimeView, DisplayText, Narrowed, Nullable, Slug } from '../../../http/schemas/common.ts';
import type { OperatorRecord } from '../../../ports/operator-store.ts';
import { Manifest } from '../../credential-types/routes.ts';
import { ProfileView } from '../../tenants/routes.ts';

/** Schemas of the organisations group (docs/backoffice/orgs.md). */

/** Why an organisation is suspended or reactivated: kept in its history and the audit entry. */
export const Reason = DisplayText(500);

/** A username, as POST /api/operators takes it. */
export const Username = Type.String({
  pattern: '^[a-z0-9][a-z0-9._-]{1,63}$',
  description: 'Lowercase letters, digits, dot, dash, underscore.',
});

export const Status = Type.Union([Type.Literal('active'), Type.Literal('suspended')]);

/** What the list's `q` finds. */
export const NamePart = Type.String({ minLength: 1, maxLength: 64, description: 'A substring of the name or slug.' });

/** A tenant-admin operator of an organisation. */
export const AdminView = Type.Object({
  username: Type.String(),
  status: Narrowed<OperatorRecord['status']>(Type.String()),
});
export type AdminView = Static<typeof AdminView>;

const DomainState = Type.String({ description: 'none, pending, verified, active or revoked' });

export const OrgView = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  did: Type.String(),
  status: Type.String({ description: 'active or suspended' }),
  statusSince: Nullable(DateTimeView),
  createdAt: DateTimeView,
  profile: ProfileView,
  counts: Type.Object({ types: Type.Integer(), credentials: Type.Integer(), members: Type.Integer() }),
  domain: Type.Object({ state: DomainState, domain: Nullable(Type.String()) }),
  admins: Type.Array(AdminView),
});
export type OrgView = Static<typeof OrgView>;

export const DomainView = Type.Object({
  slug: Type.String(),
  state: DomainState,
  domain: Nullable(Type.String()),
  documentUrl: Nullable(Type.String()),
  requestedAt: Nullable(DateTimeView),
  verifiedAt: Nullable(DateTimeView),
  activatedAt: Nullable(DateTimeView),
  revokedAt: Nullable(DateTimeView),
});
export type DomainView = Static<typeof DomainView>;

export const LifecycleView = Type.Object({
  slug: Type.String(),
  status: Type.String({ description: 'active or suspended' }),
  since: Nullable(DateTimeView),
  reason: Nullable(Type.String()),
  changes: Type.Array(
    Type.Object({
      seq: Type.Integer(),
      status: Type.String(),
      actor: Type.String(),
      reason: Type.String(),
      approvalId: Nullable(Type.String()),
      at: DateTimeView,
    }),
  ),
});
export type LifecycleView = Static<typeof LifecycleView>;

/** The verification document and where it is published (docs/backoffice/orgs.md, "Custom domain"). */
export const DomainDocument = Type.Object({
  url: Type.String(),
  document: Type.Object({ tenant: Type.String(), did: Type.String(), token: Type.String(), issuedAt: Type.String() }),
});

const Display = Type.Array(Type.Record(Type.String(), Type.Unknown()));

export const BrandingPreview = Type.Object({
  slug: Type.String({ description: "The organisation's slug; for a new one, the slug its name would get if free." }),
  display: Display,
  configurations: Type.Record(Type.String(), Display),
  manifest: Manifest,
});

export { Slug };
