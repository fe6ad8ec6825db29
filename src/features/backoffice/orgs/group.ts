import { Type } from '@sinclair/typebox';
import type { Context } from '../../../app/module.ts';
import { type ApprovalDesk, ApprovalSchema } from '../../../http/admin/approval-desk.ts';
import { adminOperations } from '../../../http/admin/operations.ts';
import type { RouteGroup, TenantScope } from '../../../http/route.ts';
import { DisplayName, refusal, Slug } from '../../../http/schemas/common.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { issuanceModule } from '../../issuance/module.ts';
import { membershipModule } from '../../membership/module.ts';
import { operatorsModule } from '../../operators/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import { ProfileFields } from '../../tenants/routes.ts';
import type { BackofficeStores, GroupBuilder } from '../module.ts';
import { OrgService, SUSPEND_ACTION } from './org-service.ts';
import {
  AdminView,
  BrandingPreview,
  DomainDocument,
  DomainView,
  LifecycleView,
  NamePart,
  OrgView,
  Reason,
  Status,
  Username,
} from './schemas.ts';

/** One organisation's own reads and settings: a tenant-admin reaches its own only. */
const OWN_ORG: TenantScope = { tenantIn: 'params', field: 'slug' };
const UNKNOWN = 'unknown_tenant';

/** The profile's fields, each optional. */
const OptionalProfile = Type.Partial(Type.Object(ProfileFields)).properties;

/** Builds the organisation service from the kernel: tenants, operators and types are other modules'. */
export async function buildOrgService(ctx: Context, stores: BackofficeStores): Promise<OrgService> {
  const [tenants, operators, types] = await Promise.all([
    ctx.use(tenantsModule),
    ctx.use(operatorsModule),
    ctx.use(credentialTypesModule),
  ]);
  return new OrgService({
    orgs: stores.orgs,
    reads: {
      types: (slugs) => ctx.viewsOf(credentialTypesModule).typesPerTenant(slugs),
      credentials: (slugs) => ctx.viewsOf(issuanceModule).issuedPerTenant(slugs),
      members: (slugs) => ctx.viewsOf(membershipModule).membersPerTenant(slugs),
      tenantAdmins: (slugs) => ctx.viewsOf(operatorsModule).tenantAdmins(slugs),
    },
    uow: ctx.unitOfWork(),
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
  const { list, detail, action } = adminOperations({
    doc: 'docs/backoffice/orgs.md',
    base: '/api/admin/orgs',
    params: { slug: Slug },
    read: 'orgsRead',
    write: 'orgsManage',
    scope: OWN_ORG,
  });
  const platform = { roles: 'orgsRun', scope: 'platform' } as const;
  return {
    name: 'admin-orgs',
    routes: [
      list('', {
        summary: 'Organisations, oldest first: status, counts, domain and admins; filter by status and name or slug.',
        filters: { status: Type.Optional(Status), q: Type.Optional(NamePart) },
        page: ['orgs', OrgView, 'A page of organisations.'],
        cursor: ['number', 'string'],
        read: (window) => orgs.list(window),
        order: (r) => [r.createdAt, r.slug],
        views: (rows) => orgs.views(rows),
      }),
      action('', {
        ...platform,
        summary: 'Create an organisation (a tenant, as POST /api/tenants does), with its first profile if given.',
        body: { name: DisplayName(100), ...OptionalProfile },
        answer: [201, 'The organisation was created.', { org: OrgView }],
        refusals: {
          400: refusal(['invalid_request', 'malformed_json', 'reserved_name'], 'a "(Demo)" name.'),
          409: refusal('conflict', 'no free slug could be found for this name.'),
        },
        write: ({ body, actor }) => orgs.create(body, actor),
      }),
      detail('/preview-branding', {
        roles: 'orgsManage',
        scope: { tenantIn: 'body' },
        summary: 'The issuer metadata display and the manifest as they would be with these settings; writes nothing.',
        body: { tenant: Type.Optional(Slug), name: DisplayName(100), ...OptionalProfile },
        answer: ['The preview.', BrandingPreview],
        refusals: { 400: ['invalid_request', 'malformed_json', 'reserved_name'], 404: UNKNOWN },
        read: ({ body }) => orgs.previewBranding(body),
      }),
      detail('/{slug}', {
        summary: 'One organisation: profile, status, counts, domain and admins.',
        answer: ['The organisation.', OrgView],
        refusals: { 404: UNKNOWN },
        read: ({ params }) => orgs.get(params.slug),
      }),
      detail('/{slug}/admins', {
        summary: "The organisation's admins: operators scoped to it with the tenant-admin role.",
        answer: ['The admins.', Type.Object({ slug: Type.String(), admins: Type.Array(AdminView) })],
        refusals: { 404: UNKNOWN },
        read: ({ params }) => orgs.admins(params.slug),
      }),
      action('/{slug}/admins', {
        summary:
          'Add an admin: an operator of the organisation given the tenant-admin role (a new person is invited through /api/admin/people/operators).',
        body: { username: Username },
        answer: [200, 'The admin, after the change.', { admin: AdminView }],
        refusals: {
          404: refusal(['unknown_tenant', 'unknown_operator'], 'unknown_operator: invite one first.'),
          409: refusal('operator_scope', 'scoped elsewhere or platform-wide.'),
        },
        write: ({ params, body, actor }) => orgs.addAdmin(params.slug, body, actor),
      }),
      action('/{slug}/admins/remove', {
        summary: 'Take the tenant-admin role away from an admin of the organisation.',
        body: { username: Username },
        answer: [200, 'The operator, after the change.', { admin: AdminView }],
        refusals: { 404: refusal(['unknown_tenant', 'unknown_operator'], 'the organisation has no admin of this name.') },
        write: ({ params, body, actor }) => orgs.removeAdmin(params.slug, body.username, actor),
      }),
      detail('/{slug}/lifecycle', {
        summary: 'The organisation’s status and its changes, newest first (at most 100).',
        answer: ['The lifecycle.', LifecycleView],
        refusals: { 404: UNKNOWN },
        read: ({ params }) => orgs.lifecycle(params.slug),
      }),
      action('/{slug}/suspend', {
        ...platform,
        summary:
          'Ask for the organisation’s suspension: files a four-eyes approval (org.suspend); a second operator approves it.',
        body: { reason: Reason },
        answer: [202, 'The approval was filed; nothing is suspended yet.', { approval: ApprovalSchema }],
        refusals: { 404: UNKNOWN, 409: refusal('org_state', 'already suspended, or the platform tenant root.') },
        write: async ({ params: { slug }, body: { reason }, principal }) => {
          // Refused here as at the desk's own check: the route answers the same whatever the desk does.
          await orgs.checkSuspendable(slug);
          return desk.request(SUSPEND_ACTION, { slug, reason }, principal, reason);
        },
      }),
      action('/{slug}/reactivate', {
        ...platform,
        summary: 'Reactivate a suspended organisation: it issues again, and its integration tokens work again.',
        body: { reason: Reason },
        answer: [200, 'Reactivated.', { lifecycle: LifecycleView }],
        refusals: { 404: UNKNOWN, 409: refusal('org_state', 'the organisation is not suspended.') },
        write: ({ params, body, actor }) => orgs.reactivate(params.slug, body.reason, actor),
      }),
      detail('/{slug}/domain', {
        summary: "The organisation's custom domain: none, pending, verified, active or revoked, with its times.",
        answer: ['The domain.', DomainView],
        refusals: { 404: UNKNOWN },
        read: ({ params }) => orgs.domains.get(params.slug),
      }),
      action('/{slug}/domain', {
        summary: 'Ask for a custom domain: recorded pending, with a verification token to publish at the domain.',
        body: { domain: Type.String({ minLength: 3, maxLength: 253, pattern: '^[A-Za-z0-9.-]+$' }) },
        answer: [200, 'The domain, pending.', { domain: DomainView }],
        refusals: {
          400: ['invalid_request', 'malformed_json', 'invalid_domain'],
          404: UNKNOWN,
          409: refusal(['domain_state', 'domain_taken'], 'domain_state: a verified or active domain is revoked first.'),
        },
        write: ({ params, body, actor }) => orgs.domains.request(params.slug, body.domain, actor),
      }),
      detail('/{slug}/domain/document', {
        summary: 'The JSON file to publish at https://<domain>/.well-known/openrail-domain.json.',
        answer: ['Where to publish it, and the document.', DomainDocument],
        refusals: { 404: UNKNOWN, 409: refusal('domain_state', 'no custom domain (none, or revoked).') },
        read: ({ params }) => orgs.domains.document(params.slug),
      }),
      action('/{slug}/domain/verify', {
        summary: 'Fetch the document from the pending domain and, when it matches, mark the domain verified.',
        body: {},
        bodyOptional: true,
        answer: [200, 'Verified.', { domain: DomainView }],
        refusals: {
          404: UNKNOWN,
          409: refusal(['domain_state', 'domain_mismatch'], 'domain_state: no pending domain.'),
          502: refusal('domain_unreachable', 'the document could not be fetched.'),
        },
        write: ({ params, actor }) => orgs.domains.verify(params.slug, actor),
      }),
      action('/{slug}/domain/activate', {
        ...platform,
        summary: 'Activate a verified custom domain.',
        body: {},
        bodyOptional: true,
        answer: [200, 'Active.', { domain: DomainView }],
        refusals: { 404: UNKNOWN, 409: refusal('domain_state', 'the domain is not verified.') },
        write: ({ params, actor }) => orgs.domains.activate(params.slug, actor),
      }),
      action('/{slug}/domain/revoke', {
        summary: 'Revoke the custom domain (pending, verified or active).',
        body: {},
        bodyOptional: true,
        answer: [200, 'Revoked.', { domain: DomainView }],
        refusals: { 404: UNKNOWN, 409: refusal('domain_state', 'no domain to revoke.') },
        write: ({ params, actor }) => orgs.domains.revoke(params.slug, actor),
      }),
    ],
  };
}
