import { Type } from '@sinclair/typebox';
import type { IssuerUrls } from '../../../core/issuer-urls.ts';
import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import { DateTimeView, Nullable } from '../../../http/schemas/common.ts';
import type { CredentialRow } from '../../../ports/backoffice-views.ts';

/** Schemas and views the session and credentials groups share (docs/backoffice/views.md). */

/** Whether the caller holds a role of a matrix row: a kind of data it may not read elsewhere is left out here too. */
export { CredentialId } from '../../../http/schemas/common.ts';
export { TypeId } from '../../credential-types/routes.ts';
/** A status list's sequence number, as in its address `<issuer>/status/<seq>`. */
export const ListSeq = Type.String({
  pattern: '^[1-9][0-9]{0,8}$',
  description: 'The status list number (the last segment of status.uri).',
});
export const Json = Type.Record(Type.String(), Type.Unknown());

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
