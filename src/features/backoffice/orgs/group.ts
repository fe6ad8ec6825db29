import { Type } from '@sinclair/typebox';
import type { Context } from '../../../app/module.ts';
import type { ApprovalDesk } from '../../../http/admin/approval-desk.ts';
import { ApprovalSchema } from '../../../http/admin/approval-desk.ts';
import { adminRoute, LIST_SCOPE, ListPage, ListQuery, listParams } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteGroup, type TenantScope } from '../../../http/route.ts';
import { AdminMutation, DisplayName, errorResponse, OPERATOR_ERRORS, Slug } from '../../../http/schemas/common.ts';
import type { TenantProfile } from '../../../ports/tenant-store.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { operatorsModule } from '../../operators/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import { ProfileFields } from '../../tenants/routes.ts';
import type { BackofficeStores, GroupBuilder } from '../module.ts';
import { orgReads } from './org-reads.ts';
import { OrgService, SUSPEND_ACTION } from './org-service.ts';
import {
  AdminView,
  BrandingPreview,
  DomainView,
  LifecycleView,
  OrgView,
  Reason,
  SlugParams,
  Status,
  Username,
} from './schemas.ts';

const DOC = 'docs/backoffice/orgs.md';
const BASE = '/api/admin/orgs';
/** One organisation's own reads and settings: a tenant-admin reaches its own only. */
const OWN_ORG: TenantScope = { tenantIn: 'params', field: 'slug' };

/** The profile's fields, each optional. */
const OptionalProfile = {
  displayName: Type.Optional(ProfileFields.displayName),
  description: Type.Optional(ProfileFields.description),
  logoUri: Type.Optional(ProfileFields.logoUri),
  primaryColor: Type.Optional(ProfileFields.primaryColor),
  backgroundColor: Type.Optional(ProfileFields.backgroundColor),
  textColor: Type.Optional(ProfileFields.textColor),
};

const NoBody = Type.Object({}, { additionalProperties: false });

/** Builds the organisation service from the kernel: tenants, operators and types are other modules'. */
export async function buildOrgService(ctx: Context, stores: BackofficeStores): Promise<OrgService> {
  const [tenants, operators, types] = await Promise.all([
    ctx.use(tenantsModule),
    ctx.use(operatorsModule),
    ctx.use(credentialTypesModule),
  ]);
  return new OrgService({
    orgs: stores.orgs,
    reads: orgReads(ctx),
    uow: ctx.unitOfWork({ orgs: stores.orgs }),
    tenants,
    operators,
    types,
    urls: ctx.urls,
    fetcher: ctx.fetcher,
    publicUrl: ctx.config.publicUrl,
    clock: ctx.clock,
    random: ctx.random,
  });
}

/**
 * Organisations (docs/backoffice/orgs.md): tenants as the back office runs them, their admins,
 * suspension (four eyes) and reactivation, a custom domain, and a branding preview.
 */
export const orgsGroup: GroupBuilder = async (_ctx, { desk, orgs }) => {
  desk.register(orgs.suspendAction());
  return { group: orgRoutes(orgs, desk) };
};

export function orgRoutes(orgs: OrgService, desk: ApprovalDesk): RouteGroup {
  const common = adminRoute(DOC);
  const actor = (request: Parameters<typeof operatorOf>[0]) => operatorActor(operatorOf(request));
  return {
    name: 'admin-orgs',
    routes: [
      defineRoute({
        ...common,
        method: 'GET',
        path: BASE,
        roles: ROLE_MATRIX.orgsRead,
        scope: LIST_SCOPE,
        summary: 'Organisations, oldest first: status, counts, domain and admins; filter by status and name or slug.',
        querystring: ListQuery({
          status: Type.Optional(Status),
          q: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A substring of the name or slug.' })),
        }),
        responses: { 200: { description: 'A page of organisations.', schema: ListPage('orgs', OrgView) }, ...OPERATOR_ERRORS },
        handler: async (request) => {
          const { status, q } = request.query;
          return orgs.list(listParams(request), { ...(status ? { status } : {}), ...(q ? { q } : {}) });
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: BASE,
        roles: ROLE_MATRIX.orgsRun,
        scope: 'platform',
        summary: 'Create an organisation (a tenant, as POST /api/tenants does), with its first profile if given.',
        body: Type.Object({ name: DisplayName(100), ...OptionalProfile }, { additionalProperties: false }),
        responses: {
          201: { description: 'The organisation was created.', schema: AdminMutation({ org: OrgView }) },
          ...OPERATOR_ERRORS,
          400: errorResponse('invalid_request, malformed_json, or reserved_name: a "(Demo)" name.'),
          409: errorResponse('conflict: no free slug could be found for this name.'),
        },
        handler: async (request, reply) => {
          const created = await orgs.create(request.body as { name: string } & Partial<TenantProfile>, actor(request));
          return reply.code(201).send({ ok: true as const, ...created });
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/preview-branding`,
        roles: ROLE_MATRIX.orgsManage,
        scope: { tenantIn: 'body' },
        summary: 'The issuer metadata display and the manifest as they would be with these settings; writes nothing.',
        body: Type.Object(
          { tenant: Type.Optional(Slug), name: DisplayName(100), ...OptionalProfile },
          { additionalProperties: false },
        ),
        responses: {
          200: { description: 'The preview.', schema: BrandingPreview },
          ...OPERATOR_ERRORS,
          400: errorResponse('invalid_request, malformed_json, or reserved_name.'),
          404: errorResponse('unknown_tenant'),
        },
        handler: async (request) =>
          orgs.previewBranding(request.body as { tenant?: string; name: string } & Partial<TenantProfile>),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${BASE}/{slug}`,
        roles: ROLE_MATRIX.orgsRead,
        scope: OWN_ORG,
        summary: 'One organisation: profile, status, counts, domain and admins.',
        params: SlugParams,
        responses: {
          200: { description: 'The organisation.', schema: OrgView },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant'),
        },
        handler: async (request) => orgs.get(request.params.slug),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${BASE}/{slug}/admins`,
        roles: ROLE_MATRIX.orgsRead,
        scope: OWN_ORG,
        summary: "The organisation's admins: operators scoped to it with the tenant-admin role.",
        params: SlugParams,
        responses: {
          200: { description: 'The admins.', schema: Type.Object({ slug: Type.String(), admins: Type.Array(AdminView) }) },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant'),
        },
        handler: async (request) => orgs.admins(request.params.slug),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/{slug}/admins`,
        roles: ROLE_MATRIX.orgsManage,
        scope: OWN_ORG,
        summary:
          'Add an admin: an operator of the organisation given the tenant-admin role (a new person is invited through /api/admin/people/operators).',
        params: SlugParams,
        body: Type.Object({ username: Username }, { additionalProperties: false }),
        responses: {
          200: { description: 'The admin, after the change.', schema: AdminMutation({ admin: AdminView }) },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant, or unknown_operator (no such operator: invite one first).'),
          409: errorResponse('operator_scope: scoped elsewhere or platform-wide.'),
        },
        handler: async (request) => ({
          ok: true as const,
          ...(await orgs.addAdmin(request.params.slug, request.body, actor(request))),
        }),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/{slug}/admins/remove`,
        roles: ROLE_MATRIX.orgsManage,
        scope: OWN_ORG,
        summary: 'Take the tenant-admin role away from an admin of the organisation.',
        params: SlugParams,
        body: Type.Object({ username: Username }, { additionalProperties: false }),
        responses: {
          200: { description: 'The operator, after the change.', schema: AdminMutation({ admin: AdminView }) },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant, or unknown_operator: the organisation has no admin of this name.'),
        },
        handler: async (request) => ({
          ok: true as const,
          ...(await orgs.removeAdmin(request.params.slug, request.body.username, actor(request))),
        }),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${BASE}/{slug}/lifecycle`,
        roles: ROLE_MATRIX.orgsRead,
        scope: OWN_ORG,
        summary: 'The organisation’s status and its changes, newest first (at most 100).',
        params: SlugParams,
        responses: {
          200: { description: 'The lifecycle.', schema: LifecycleView },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant'),
        },
        handler: async (request) => orgs.lifecycle(request.params.slug),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/{slug}/suspend`,
        roles: ROLE_MATRIX.orgsRun,
        scope: 'platform',
        summary:
          'Ask for the organisation’s suspension: files a four-eyes approval (org.suspend); a second operator approves it.',
        params: SlugParams,
        body: Type.Object({ reason: Reason }, { additionalProperties: false }),
        responses: {
          202: {
            description: 'The approval was filed; nothing is suspended yet.',
            schema: AdminMutation({ approval: ApprovalSchema }),
          },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant'),
          409: errorResponse('org_state: already suspended, or the platform tenant root.'),
        },
        handler: async (request, reply) => {
          const { slug } = request.params;
          // Refused here as at the desk's own check: the route answers the same whatever the desk does.
          await orgs.checkSuspendable(slug);
          const filed = await desk.request(
            SUSPEND_ACTION,
            { slug, reason: request.body.reason },
            operatorOf(request),
            request.body.reason,
          );
          return reply.code(202).send({ ok: true as const, ...filed });
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/{slug}/reactivate`,
        roles: ROLE_MATRIX.orgsRun,
        scope: 'platform',
        summary: 'Reactivate a suspended organisation: it issues again, and its integration tokens work again.',
        params: SlugParams,
        body: Type.Object({ reason: Reason }, { additionalProperties: false }),
        responses: {
          200: { description: 'Reactivated.', schema: AdminMutation({ lifecycle: LifecycleView }) },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant'),
          409: errorResponse('org_state: the organisation is not suspended.'),
        },
        handler: async (request) => ({
          ok: true as const,
          ...(await orgs.reactivate(request.params.slug, request.body.reason, actor(request))),
        }),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${BASE}/{slug}/domain`,
        roles: ROLE_MATRIX.orgsRead,
        scope: OWN_ORG,
        summary: "The organisation's custom domain: none, pending, verified, active or revoked, with its times.",
        params: SlugParams,
        responses: {
          200: { description: 'The domain.', schema: DomainView },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant'),
        },
        handler: async (request) => orgs.domains.get(request.params.slug),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/{slug}/domain`,
        roles: ROLE_MATRIX.orgsManage,
        scope: OWN_ORG,
        summary: 'Ask for a custom domain: recorded pending, with a verification token to publish at the domain.',
        params: SlugParams,
        body: Type.Object(
          { domain: Type.String({ minLength: 3, maxLength: 253, pattern: '^[A-Za-z0-9.-]+$' }) },
          { additionalProperties: false },
        ),
        responses: {
          200: { description: 'The domain, pending.', schema: AdminMutation({ domain: DomainView }) },
          ...OPERATOR_ERRORS,
          400: errorResponse('invalid_request, malformed_json, or invalid_domain.'),
          404: errorResponse('unknown_tenant'),
          409: errorResponse('domain_state: a verified or active domain is revoked first; domain_taken.'),
        },
        handler: async (request) => ({
          ok: true as const,
          ...(await orgs.domains.request(request.params.slug, request.body.domain, actor(request))),
        }),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${BASE}/{slug}/domain/document`,
        roles: ROLE_MATRIX.orgsRead,
        scope: OWN_ORG,
        summary: 'The JSON file to publish at https://<domain>/.well-known/openrail-domain.json.',
        params: SlugParams,
        responses: {
          200: {
            description: 'Where to publish it, and the document.',
            schema: Type.Object({
              url: Type.String(),
              document: Type.Object({ tenant: Type.String(), did: Type.String(), token: Type.String(), issuedAt: Type.String() }),
            }),
          },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant'),
          409: errorResponse('domain_state: no custom domain (none, or revoked).'),
        },
        handler: async (request) => orgs.domains.document(request.params.slug),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/{slug}/domain/verify`,
        roles: ROLE_MATRIX.orgsManage,
        scope: OWN_ORG,
        summary: 'Fetch the document from the pending domain and, when it matches, mark the domain verified.',
        params: SlugParams,
        body: NoBody,
        bodyOptional: true,
        responses: {
          200: { description: 'Verified.', schema: AdminMutation({ domain: DomainView }) },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant'),
          409: errorResponse('domain_state: no pending domain; domain_mismatch: the document does not match.'),
          502: errorResponse('domain_unreachable: the document could not be fetched.'),
        },
        handler: async (request) => ({ ok: true as const, ...(await orgs.domains.verify(request.params.slug, actor(request))) }),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/{slug}/domain/activate`,
        roles: ROLE_MATRIX.orgsRun,
        scope: 'platform',
        summary: 'Activate a verified custom domain.',
        params: SlugParams,
        body: NoBody,
        bodyOptional: true,
        responses: {
          200: { description: 'Active.', schema: AdminMutation({ domain: DomainView }) },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant'),
          409: errorResponse('domain_state: the domain is not verified.'),
        },
        handler: async (request) => ({
          ok: true as const,
          ...(await orgs.domains.activate(request.params.slug, actor(request))),
        }),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/{slug}/domain/revoke`,
        roles: ROLE_MATRIX.orgsManage,
        scope: OWN_ORG,
        summary: 'Revoke the custom domain (pending, verified or active).',
        params: SlugParams,
        body: NoBody,
        bodyOptional: true,
        responses: {
          200: { description: 'Revoked.', schema: AdminMutation({ domain: DomainView }) },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant'),
          409: errorResponse('domain_state: no domain to revoke.'),
        },
        handler: async (request) => ({ ok: true as const, ...(await orgs.domains.revoke(request.params.slug, actor(request))) }),
      }),
    ],
  };
}
