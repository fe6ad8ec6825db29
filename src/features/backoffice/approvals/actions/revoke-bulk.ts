import { type Static, Type } from '@sinclair/typebox';
import { ServiceError } from '../../../../core/errors.ts';
import type { ApprovalAction } from '../../../../http/admin/approval-desk.ts';
import { CredentialId, Slug } from '../../../../http/schemas/common.ts';
import type { IssuanceViews } from '../../../../ports/issuance-views.ts';
import { TypeId } from '../../../credential-types/routes.ts';
import type { TypeService } from '../../../credential-types/type-service.ts';
import type { StatusService } from '../../../status/status-service.ts';
import type { TenantService } from '../../../tenants/tenant-service.ts';

/** Credentials one approval names by id, at most. */
export const BULK_IDS_MAX = 500;
/** Credentials of one type one approval revokes, at most. */
export const BULK_TYPE_MAX = 10_000;
/** Credentials revoked per statement. */
const CHUNK = 500;

export const RevokeBulkParams = Type.Object(
  {
    tenant: Slug,
    credentialIds: Type.Optional(
      Type.Array(CredentialId, {
        minItems: 1,
        maxItems: BULK_IDS_MAX,
        uniqueItems: true,
      }),
    ),
    typeId: Type.Optional(TypeId),
  },
  { additionalProperties: false },
);
type Params = Static<typeof RevokeBulkParams>;

const tooMany = (tenant: string, typeId: string) =>
  new ServiceError(
    'bulk_too_large',
    `More than ${BULK_TYPE_MAX} credentials of type ${typeId} of tenant ${tenant} are valid: revoke them in parts, by credentialIds.`,
  );

/**
 * `credentials.revoke-bulk` (docs/backoffice/approvals.md): revokes many credentials of one tenant
 * at once, by id or every valid one of a type, once a second operator approves. It revokes through
 * the status service, whose unit of work joins the approval's transaction, so each credential gets the audit entry and the
 * `credential.revoked` event `POST /api/tenants/{tenant}/revoke` writes.
 */
export function revokeBulkAction(deps: {
  /** The issuance module's views of its credentials: which exist, which are valid (read in the approval's transaction). */
  credentials: Pick<IssuanceViews, 'knownCredentials' | 'validOfType'>;
  status: StatusService;
  tenants: TenantService;
  types: TypeService;
}): ApprovalAction<Params> {
  const selection = (p: Params): { ids: string[] } | { typeId: string } => {
    if ((p.credentialIds === undefined) === (p.typeId === undefined)) {
      throw new ServiceError('invalid_request', 'Name the credentials by exactly one of params.credentialIds or params.typeId.');
    }
    return p.credentialIds !== undefined ? { ids: p.credentialIds } : { typeId: p.typeId as string };
  };
  return {
    name: 'credentials.revoke-bulk',
    summary: 'Revoke many credentials of a tenant: by id (up to 500), or every valid one of a type (up to 10,000).',
    params: RevokeBulkParams,
    roles: ['owner', 'ops', 'tenant-admin'],
    tenantOf: (p) => p.tenant,
    async check(p) {
      const chosen = selection(p);
      await deps.tenants.get(p.tenant);
      const targets = deps.credentials;
      if ('ids' in chosen) {
        const known = new Set(await targets.knownCredentials(p.tenant, chosen.ids));
        const unknown = chosen.ids.filter((id) => !known.has(id));
        if (unknown.length > 0) {
          throw new ServiceError(
            'unknown_credential',
            `${unknown.length} of the credentials named are not credentials of tenant ${p.tenant}, the first: ${unknown[0]}.`,
          );
        }
        return;
      }
      await deps.types.get(p.tenant, chosen.typeId);
      const valid = await targets.validOfType(p.tenant, chosen.typeId, BULK_TYPE_MAX + 1);
      if (valid.length > BULK_TYPE_MAX) throw tooMany(p.tenant, chosen.typeId);
      if (valid.length === 0) {
        throw new ServiceError('unknown_credential', `No credential of type ${chosen.typeId} of tenant ${p.tenant} is valid.`);
      }
    },
    async execute(_tx, p, context) {
      const chosen = selection(p);
      // By type: the credentials valid now, in this transaction (some may have been revoked since filing).
      const ids = 'ids' in chosen ? chosen.ids : await deps.credentials.validOfType(p.tenant, chosen.typeId, BULK_TYPE_MAX + 1);
      if (ids.length > BULK_TYPE_MAX) throw tooMany(p.tenant, (chosen as { typeId: string }).typeId);
      let matched = 0;
      let revoked = 0;
      for (let i = 0; i < ids.length; i += CHUNK) {
        const done = await deps.status.revokeEach(p.tenant, ids.slice(i, i + CHUNK), context.actor);
        matched += done.views.length;
        revoked += done.newlyRevoked.length;
      }
      return { revoked, alreadyRevoked: matched - revoked };
    },
  };
}
