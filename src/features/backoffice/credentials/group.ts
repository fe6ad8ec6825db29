import { Type } from '@sinclair/typebox';
import { parseClaimSpecs } from '../../../core/claims/claim-spec.ts';
import { iso } from '../../../http/admin/kit.ts';
import { adminOperations } from '../../../http/admin/operations.ts';
import { AccountId, DisplayName, Slug } from '../../../http/schemas/common.ts';
import type { MdocRequest } from '../../credential-types/formats.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { FormatFields, REGISTER_TYPE_REFUSALS, TypeBody } from '../../credential-types/routes.ts';
import { claimView } from '../../credential-types/type-service.ts';
import { issuanceModule } from '../../issuance/module.ts';
import { offersModule } from '../../offers/module.ts';
import type { GroupBuilder } from '../module.ts';
import { Catalogue, type TypeUsage } from './catalogue.ts';
import { credentialDetail } from './credential-detail.ts';
import {
  CredentialDetail,
  CredentialId,
  CredentialStatus,
  CredentialView,
  credentialView,
  HolderDetail,
  HolderRow,
  TypeDetail,
  TypeGroup,
  TypeId,
  TypeRow,
} from './schemas.ts';
import { finderSources } from './sources.ts';

/**
 * Credentials, holders and credential types across tenants, and registering a type from the
 * back office (docs/backoffice/views.md). Reads compose the owners' views (issuance, offers,
 * credential types, membership, the wallet); they never carry a claim value.
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
  const sum = (uses: readonly TypeUsage[], count: 'offers' | 'issued' | 'revoked') => uses.reduce((n, u) => n + u[count], 0);
  const { list, detail, action } = adminOperations({
    doc: 'docs/backoffice/views.md',
    base: '/api/admin',
    read: 'credentialsRead',
  });

  return {
    group: {
      name: 'admin-credentials',
      routes: [
        list('/credentials', {
          summary: 'Issued credentials, newest first; filter by tenant, type, state and issue time.',
          filters: { typeId: Type.Optional(TypeId), status: Type.Optional(CredentialStatus) },
          page: ['credentials', CredentialView, 'A page of credentials.'],
          cursor: ['number', 'string'],
          // Credentials carry no exp (docs/issuance.md): none is ever expired.
          read: async ({ status, ...window }) =>
            status === 'expired' ? [] : issuance.credentials({ ...window, ...(status === undefined ? {} : { status }) }),
          order: (c) => [c.issuedAt, c.id],
          view: (c) => credentialView(urls, c),
        }),
        detail('/credential', {
          scope: { tenantIn: 'query' },
          summary: 'One credential of a tenant by its id: its record, its offer, who offered and who revoked it.',
          query: { tenant: Slug, credentialId: CredentialId },
          answer: ['The credential.', CredentialDetail],
          missing: ['unknown_credential', ({ query }) => `Tenant ${query.tenant} has no credential ${query.credentialId}.`],
          read: async ({ query }) => {
            const found = await issuance.credential(query.credentialId, query.tenant);
            return found && credentialDetail(detailReads, types, urls, found);
          },
        }),
        list('/credential-types', {
          summary: 'Credential types of every tenant (or one), with how many offers and credentials each has.',
          page: ['types', TypeRow, 'A page of types, by tenant and typeId.'],
          cursor: ['string', 'string'],
          read: ({ tenant, since, until, after, limit }) => catalogue.typeUsage(tenant, { since, until }, after, limit),
          order: (u) => [u.tenant, u.typeId],
          view: typeRow,
        }),
        detail('/credential-type', {
          scope: { tenantIn: 'query' },
          summary: 'One credential type of a tenant: its claims, and how many offers and credentials it has.',
          query: { tenant: Slug, typeId: TypeId },
          answer: ['The type.', TypeDetail],
          missing: ['unknown_type', ({ query }) => `Tenant ${query.tenant} has no credential type "${query.typeId}".`],
          read: async ({ query }) => {
            const found = await catalogue.oneTypeUsage(query.tenant, query.typeId);
            return (
              found && {
                ...typeRow(found),
                claims: parseClaimSpecs(found.claims).map(claimView),
                valid: found.issued - found.revoked,
              }
            );
          },
        }),
        list('/types', {
          summary: 'Credential types grouped by typeId: which tenants have a type of that id, and how much each uses it.',
          page: ['types', TypeGroup, 'A page of typeIds, in order.'],
          cursor: ['string'],
          read: ({ tenant, since, until, after, limit }) => catalogue.typesByTypeId(tenant, { since, until }, after?.[0], limit),
          order: (g) => [g.typeId],
          view: (g) => ({
            typeId: g.typeId,
            tenants: g.uses.length,
            offers: sum(g.uses, 'offers'),
            issued: sum(g.uses, 'issued'),
            revoked: sum(g.uses, 'revoked'),
            uses: g.uses.map(typeRow),
          }),
        }),
        action('/types', {
          roles: 'typesWrite',
          scope: { tenantIn: 'body' },
          summary: 'Register a credential type for a tenant, exactly as POST /api/types does.',
          body: {
            tenant: Slug,
            name: DisplayName(100),
            claims: Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 100 }),
            ...FormatFields,
          },
          answer: [201, 'The registered type.', { type: TypeBody }],
          refusals: REGISTER_TYPE_REFUSALS,
          write: ({ body, actor }) =>
            types.registerAudited(body.tenant, body.name, body.claims, actor, {
              formats: body.formats,
              mdoc: body.mdoc as MdocRequest,
            }),
        }),
        list('/holders', {
          summary: 'Holder accounts the service knows (members and wallet items), by account id.',
          page: ['holders', HolderRow, 'A page of accounts.'],
          cursor: ['string'],
          read: ({ tenant, since, until, after, limit }) => catalogue.holders(tenant, { since, until }, after?.[0], limit),
          order: (h) => [h.accountId],
          view: (h) => h,
        }),
        detail('/holder', {
          scope: { tenantIn: 'query', list: true },
          summary:
            'One holder account: memberships, items by kind and state, channels, credentials, deposits, directory listing.',
          query: { accountId: AccountId, tenant: Type.Optional(Slug) },
          answer: ['What the service holds of the account: ids, states and counts only.', HolderDetail],
          missing: [
            'unknown_holder',
            ({ tenant }) =>
              tenant === null ? 'No tenant holds anything of this account.' : `Tenant ${tenant} holds nothing of this account.`,
          ],
          read: async ({ query, tenant }) => {
            const found = await catalogue.holder(query.accountId, tenant, ctx.clock.now());
            return (
              found && {
                ...found,
                tenant,
                memberships: found.memberships.map((m) => ({ ...m, joinedAt: iso(m.joinedAt) })),
                channels: found.channels.map((c) => ({ ...c, createdAt: iso(c.createdAt), updatedAt: iso(c.updatedAt) })),
              }
            );
          },
        }),
      ],
    },
  };
};
