import { Type } from '@sinclair/typebox';
import { parseClaimSpecs } from '../../../core/claims/claim-spec.ts';
import { ServiceError } from '../../../core/errors.ts';
import {
  adminRoute,
  cursorOf,
  iso,
  LIST_SCOPE,
  ListPage,
  ListQuery,
  listParams,
  listTenant,
  page,
  windowOf,
} from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import { defineRoute } from '../../../http/route.ts';
import {
  AccountId,
  AdminMutation,
  DateTimeView,
  DisplayName,
  errorResponse,
  Nullable,
  OPERATOR_ERRORS,
  Slug,
} from '../../../http/schemas/common.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { Claim, REGISTER_TYPE_REFUSALS, TypeBody } from '../../credential-types/routes.ts';
import { claimView } from '../../credential-types/type-service.ts';
import { issuanceModule } from '../../issuance/module.ts';
import { offersModule } from '../../offers/module.ts';
import type { GroupBuilder } from '../module.ts';
import { Catalogue, type TypeUsage } from './catalogue.ts';
import { credentialDetail } from './credential-detail.ts';
import { CredentialDetail, CredentialId, CredentialView, credentialView, TypeId } from './schemas.ts';
import { finderSources } from './sources.ts';

const DOC = 'docs/backoffice/views.md';
const base = '/api/admin';

const Usage = {
  offers: Type.Integer({ description: 'Offers made for the type.' }),
  issued: Type.Integer({ description: 'Credentials issued of the type.' }),
  revoked: Type.Integer({ description: 'Of those, revoked.' }),
};

const TypeRow = Type.Object({
  tenant: Type.String(),
  typeId: Type.String(),
  name: Type.String(),
  vct: Type.String(),
  claimCount: Type.Integer(),
  createdAt: DateTimeView,
  ...Usage,
});

const CredentialStatus = Type.Union([Type.Literal('valid'), Type.Literal('revoked'), Type.Literal('expired')]);

/**
 * Credentials, holders and credential types across tenants, and registering a type from the
 * back office (docs/backoffice/views.md). Reads are read models over what issuance, offers,
 * membership and the wallet keep; they never carry a claim value.
 */
export const credentialsGroup: GroupBuilder = async (ctx) => {
  const catalogue = new Catalogue(finderSources(ctx));
  const issuance = ctx.viewsOf(issuanceModule);
  const detailReads = { offers: ctx.viewsOf(offersModule), kernel: ctx.views };
  const types = await ctx.use(credentialTypesModule);
  const urls = ctx.urls;
  const typeRow = (u: TypeUsage) => ({
    tenant: u.tenant,
    typeId: u.typeId,
    name: u.name,
    vct: urls.vct(u.tenant, u.typeId),
    claimCount: u.claims.length,
    createdAt: iso(u.createdAt),
    offers: u.offers,
    issued: u.issued,
    revoked: u.revoked,
  });

  return {
    group: {
      name: 'admin-credentials',
      routes: [
        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/credentials`,
          roles: ROLE_MATRIX.credentialsRead,
          scope: LIST_SCOPE,
          summary: 'Issued credentials, newest first; filter by tenant, type, state and issue time.',
          querystring: ListQuery({ typeId: Type.Optional(TypeId), status: Type.Optional(CredentialStatus) }),
          responses: {
            200: { description: 'A page of credentials.', schema: ListPage('credentials', CredentialView) },
            ...OPERATOR_ERRORS,
          },
          handler: async (request) => {
            const p = listParams(request);
            const after = cursorOf(p.after, ['number', 'string']);
            const { typeId, status } = request.query;
            // Credentials carry no exp (docs/issuance.md): none is ever expired.
            if (status === 'expired') return { credentials: [], nextCursor: null };
            const rows = await issuance.credentials({
              tenant: p.tenant,
              ...(typeId === undefined ? {} : { typeId }),
              ...(status === undefined ? {} : { status }),
              ...windowOf(p),
              ...(after === undefined ? {} : { after }),
              limit: p.limit + 1,
            });
            const shown = page(
              rows,
              p.limit,
              (c) => [c.issuedAt, c.id],
              (c) => credentialView(urls, c),
            );
            return { credentials: shown.rows, nextCursor: shown.nextCursor };
          },
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/credential`,
          roles: ROLE_MATRIX.credentialsRead,
          scope: { tenantIn: 'query' },
          summary: 'One credential of a tenant by its id: its record, its offer, who offered and who revoked it.',
          querystring: Type.Object({ tenant: Slug, credentialId: CredentialId }, { additionalProperties: false }),
          responses: {
            200: { description: 'The credential.', schema: CredentialDetail },
            ...OPERATOR_ERRORS,
            404: errorResponse('unknown_credential'),
          },
          handler: async (request) => {
            const { tenant, credentialId } = request.query;
            const found = await issuance.credential(credentialId, tenant);
            if (!found) throw new ServiceError('unknown_credential', `Tenant ${tenant} has no credential ${credentialId}.`);
            return credentialDetail(detailReads, types, urls, found);
          },
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/credential-types`,
          roles: ROLE_MATRIX.credentialsRead,
          scope: LIST_SCOPE,
          summary: 'Credential types of every tenant (or one), with how many offers and credentials each has.',
          querystring: ListQuery(),
          responses: {
            200: { description: 'A page of types, by tenant and typeId.', schema: ListPage('types', TypeRow) },
            ...OPERATOR_ERRORS,
          },
          handler: async (request) => {
            const p = listParams(request);
            const after = cursorOf(p.after, ['string', 'string']);
            const rows = await catalogue.typeUsage(p.tenant, { since: p.since, until: p.until }, after, p.limit + 1);
            const shown = page(rows, p.limit, (u) => [u.tenant, u.typeId], typeRow);
            return { types: shown.rows, nextCursor: shown.nextCursor };
          },
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/credential-type`,
          roles: ROLE_MATRIX.credentialsRead,
          scope: { tenantIn: 'query' },
          summary: 'One credential type of a tenant: its claims, and how many offers and credentials it has.',
          querystring: Type.Object({ tenant: Slug, typeId: TypeId }, { additionalProperties: false }),
          responses: {
            200: {
              description: 'The type.',
              schema: Type.Object({
                ...TypeRow.properties,
                claims: Type.Array(Claim),
                valid: Type.Integer({ description: 'Issued and not revoked.' }),
              }),
            },
            ...OPERATOR_ERRORS,
            404: errorResponse('unknown_type'),
          },
          handler: async (request) => {
            const { tenant, typeId } = request.query;
            const found = await catalogue.oneTypeUsage(tenant, typeId);
            if (!found) throw new ServiceError('unknown_type', `Tenant ${tenant} has no credential type "${typeId}".`);
            return {
              ...typeRow(found),
              claims: parseClaimSpecs(found.claims).map(claimView),
              valid: found.issued - found.revoked,
            };
          },
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/types`,
          roles: ROLE_MATRIX.credentialsRead,
          scope: LIST_SCOPE,
          summary: 'Credential types grouped by typeId: which tenants have a type of that id, and how much each uses it.',
          querystring: ListQuery(),
          responses: {
            200: {
              description: 'A page of typeIds, in order.',
              schema: ListPage(
                'types',
                Type.Object({
                  typeId: Type.String(),
                  tenants: Type.Integer({ description: 'How many tenants (of those shown) have a type of this id.' }),
                  ...Usage,
                  uses: Type.Array(TypeRow),
                }),
              ),
            },
            ...OPERATOR_ERRORS,
          },
          handler: async (request) => {
            const p = listParams(request);
            const after = cursorOf(p.after, ['string']);
            const groups = await catalogue.typesByTypeId(p.tenant, { since: p.since, until: p.until }, after?.[0], p.limit + 1);
            const shown = page(
              groups,
              p.limit,
              (g) => [g.typeId],
              (g) => ({
                typeId: g.typeId,
                tenants: g.uses.length,
                offers: g.uses.reduce((n, u) => n + u.offers, 0),
                issued: g.uses.reduce((n, u) => n + u.issued, 0),
                revoked: g.uses.reduce((n, u) => n + u.revoked, 0),
                uses: g.uses.map(typeRow),
              }),
            );
            return { types: shown.rows, nextCursor: shown.nextCursor };
          },
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'POST',
          path: `${base}/types`,
          roles: ROLE_MATRIX.typesWrite,
          scope: { tenantIn: 'body' },
          summary: 'Register a credential type for a tenant, exactly as POST /api/types does.',
          body: Type.Object(
            {
              tenant: Slug,
              name: DisplayName(100),
              claims: Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 100 }),
            },
            { additionalProperties: false },
          ),
          responses: {
            201: { description: 'The registered type.', schema: AdminMutation({ type: TypeBody }) },
            ...OPERATOR_ERRORS,
            ...REGISTER_TYPE_REFUSALS,
          },
          handler: async (request, reply) => {
            const { tenant, name, claims } = request.body;
            const { type, auditSeq } = await types.registerAudited(tenant, name, claims, operatorActor(operatorOf(request)));
            return reply.code(201).send({ ok: true as const, auditSeq, type });
          },
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/holders`,
          roles: ROLE_MATRIX.credentialsRead,
          scope: LIST_SCOPE,
          summary: 'Holder accounts the service knows (members and wallet items), by account id.',
          querystring: ListQuery(),
          responses: {
            200: {
              description: 'A page of accounts.',
              schema: ListPage(
                'holders',
                Type.Object({
                  accountId: Type.String(),
                  tenants: Type.Array(Type.String()),
                  memberships: Type.Integer(),
                  items: Type.Integer(),
                }),
              ),
            },
            ...OPERATOR_ERRORS,
          },
          handler: async (request) => {
            const p = listParams(request);
            const after = cursorOf(p.after, ['string']);
            const rows = await catalogue.holders(p.tenant, { since: p.since, until: p.until }, after?.[0], p.limit + 1);
            const shown = page(
              rows,
              p.limit,
              (h) => [h.accountId],
              (h) => h,
            );
            return { holders: shown.rows, nextCursor: shown.nextCursor };
          },
        }),

        defineRoute({
          ...adminRoute(DOC),
          method: 'GET',
          path: `${base}/holder`,
          roles: ROLE_MATRIX.credentialsRead,
          scope: LIST_SCOPE,
          summary:
            'One holder account: memberships, items by kind and state, channels, credentials, deposits, directory listing.',
          querystring: Type.Object({ accountId: AccountId, tenant: Type.Optional(Slug) }, { additionalProperties: false }),
          responses: {
            200: {
              description: 'What the service holds of the account: ids, states and counts only.',
              schema: Type.Object({
                accountId: Type.String(),
                tenant: Nullable(Type.String()),
                memberships: Type.Array(
                  Type.Object({ tenant: Type.String(), tier: Type.String(), status: Type.String(), joinedAt: DateTimeView }),
                ),
                items: Type.Array(
                  Type.Object({ tenant: Type.String(), kind: Type.String(), state: Type.String(), count: Type.Integer() }),
                ),
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
              }),
            },
            ...OPERATOR_ERRORS,
            404: errorResponse('unknown_holder'),
          },
          handler: async (request) => {
            const tenant = listTenant(request);
            const { accountId } = request.query;
            const found = await catalogue.holder(accountId, tenant, ctx.clock.now());
            if (!found) {
              throw new ServiceError(
                'unknown_holder',
                tenant === null ? 'No tenant holds anything of this account.' : `Tenant ${tenant} holds nothing of this account.`,
              );
            }
            return {
              ...found,
              tenant,
              memberships: found.memberships.map((m) => ({ ...m, joinedAt: iso(m.joinedAt) })),
              channels: found.channels.map((c) => ({ ...c, createdAt: iso(c.createdAt), updatedAt: iso(c.updatedAt) })),
            };
          },
        }),
      ],
    },
  };
};
