import { Type } from '@sinclair/typebox';
import type { IssuerUrls } from '../../../core/issuer-urls.ts';
import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import { DateTimeView, Nullable } from '../../../http/schemas/common.ts';
import type { CredentialRow } from '../../../ports/backoffice-views.ts';
import { Claim } from '../../credential-types/routes.ts';

/** Schemas of the credentials group, and the credential views the session group answers too (docs/backoffice/views.md). */

export { CredentialId } from '../../../http/schemas/common.ts';
export { TypeId } from '../../credential-types/routes.ts';

const StatusView = Type.Object({
  list: Type.Integer(),
  idx: Type.Integer(),
  uri: Type.String({ description: 'status.status_list.uri of the credential.' }),
});

/** An issued credential as the back office shows it: ids, status entry, times. Never a claim value. */
export const CredentialView = Type.Object({
  credentialId: Type.String(),
  tenant: Type.String(),
  typeId: Type.String(),
  offerId: Type.String(),
  status: StatusView,
  accountId: Nullable(Type.String({ description: "The holder key's thumbprint; null once the holder erased its account." })),
  state: Type.Union([Type.Literal('valid'), Type.Literal('revoked')]),
  issuedAt: DateTimeView,
  revokedAt: Nullable(DateTimeView),
  expiresAt: Type.Union([DateTimeView, Type.Null()], {
    description: 'The credential’s exp, when its type has a validity (docs/operations.md); null: it ends only by revocation.',
  }),
});

export const credentialView = (urls: IssuerUrls, c: CredentialRow) => ({
  credentialId: c.id,
  tenant: c.tenant,
  typeId: c.typeId,
  offerId: c.offerId,
  status: { list: c.listSeq, idx: c.idx, uri: urls.statusList(c.tenant, c.listSeq) },
  accountId: c.accountId,
  state: c.revokedAt === null ? ('valid' as const) : ('revoked' as const),
  issuedAt: iso(c.issuedAt),
  revokedAt: isoOrNull(c.revokedAt),
  expiresAt: isoOrNull(c.expiresAt),
});

/** One credential with where it came from and who acted on it, from the offer and the audit log. */
export const CredentialDetail = Type.Object({
  ...CredentialView.properties,
  typeName: Nullable(Type.String()),
  offer: Nullable(
    Type.Object({
      offerId: Type.String(),
      createdAt: DateTimeView,
      createdBy: Nullable(Type.String({ description: 'The actor of its offer.created audit entry.' })),
      auditSeq: Nullable(Type.Integer()),
      expiresAt: DateTimeView,
      redeemedAt: Nullable(DateTimeView),
      collectedAt: Nullable(DateTimeView),
    }),
  ),
  revokedBy: Nullable(Type.String({ description: 'The actor of its credential.revoked audit entry.' })),
  revocationAuditSeq: Nullable(Type.Integer()),
});

export const CredentialStatus = Type.Union([Type.Literal('valid'), Type.Literal('revoked'), Type.Literal('expired')]);

const Usage = {
  offers: Type.Integer({ description: 'Offers made for the type.' }),
  issued: Type.Integer({ description: 'Credentials issued of the type.' }),
  revoked: Type.Integer({ description: 'Of those, revoked.' }),
};

/** A credential type of a tenant, with how much it is used. */
export const TypeRow = Type.Object({
  tenant: Type.String(),
  typeId: Type.String(),
  name: Type.String(),
  vct: Type.String(),
  claimCount: Type.Integer(),
  createdAt: DateTimeView,
  ...Usage,
});

export const TypeDetail = Type.Object({
  ...TypeRow.properties,
  claims: Type.Array(Claim),
  valid: Type.Integer({ description: 'Issued and not revoked.' }),
});

/** The types of one typeId across tenants. */
export const TypeGroup = Type.Object({
  typeId: Type.String(),
  tenants: Type.Integer({ description: 'How many tenants (of those shown) have a type of this id.' }),
  ...Usage,
  uses: Type.Array(TypeRow),
});

/** A holder in the catalogue's list: its tenants, and how many memberships and items it has. */
export const HolderRow = Type.Object({
  accountId: Type.String(),
  tenants: Type.Array(Type.String()),
  memberships: Type.Integer(),
  items: Type.Integer(),
});

export const HolderDetail = Type.Object({
  accountId: Type.String(),
  tenant: Nullable(Type.String()),
  memberships: Type.Array(
    Type.Object({ tenant: Type.String(), tier: Type.String(), status: Type.String(), joinedAt: DateTimeView }),
  ),
  items: Type.Array(Type.Object({ tenant: Type.String(), kind: Type.String(), state: Type.String(), count: Type.Integer() })),
  channels: Type.Array(
    Type.Object({
      tenant: Type.String(),
      state: Type.String(),
      elements: Type.Array(Type.String()),
      requestedBy: Type.String(),
      createdAt: DateTimeView,
      updatedAt: DateTimeView,
    }),
  ),
  credentials: Type.Array(Type.Object({ tenant: Type.String(), issued: Type.Integer(), revoked: Type.Integer() })),
  deposits: Type.Array(Type.Object({ tenant: Type.String(), count: Type.Integer() })),
  directoryListed: Type.Boolean(),
});
