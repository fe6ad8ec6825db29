import { Type } from '@sinclair/typebox';
import { type Actor, actorLabel } from '../../../core/actor.ts';
import type { Clock } from '../../../core/clock.ts';
import { normaliseName } from '../../../core/display-text.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { IssuerUrls } from '../../../core/issuer-urls.ts';
import type { Random } from '../../../core/random.ts';
import { baseSlug, isDemoSlug, ROOT_SLUG } from '../../../core/slug.ts';
import type { ApprovalAction } from '../../../http/admin/approval-desk.ts';
import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import type { HttpFetcher } from '../../../ports/http-fetcher.ts';
import type { TenantAdmin } from '../../../ports/operators-views.ts';
import type { OrgStore } from '../../../ports/org-store.ts';
import {
  emptyProfile,
  type TenantListFilter,
  type TenantProfile,
  type TenantRecord,
  type TenantRow,
} from '../../../ports/tenant-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import type { TypeService } from '../../credential-types/type-service.ts';
import { issuerMetadata } from '../../issuance/metadata.ts';
import type { OperatorService } from '../../operators/operator-service.ts';
import { checkDemoMarks, type TenantService } from '../../tenants/tenant-service.ts';
import { OrgDomains } from './org-domains.ts';
import type { AdminView, LifecycleView, OrgView } from './schemas.ts';

/** The four-eyes action a suspension is filed as (docs/backoffice/orgs.md, "Suspension"). */
export const SUSPEND_ACTION = 'org.suspend';

/** Changes of status `GET /lifecycle` answers, newest first. */
export const HISTORY_LIMIT = 100;

const PROFILE_KEYS = ['displayName', 'description', 'logoUri', 'primaryColor', 'backgroundColor', 'textColor'] as const;

export interface SuspendParams {
  slug: string;
  reason: string;
}

/** An organisation's counts, each from its owner's view. */
export interface OrgCounts {
  /** Credential types registered. */
  types: number;
  /** Credentials issued (revoked ones included). */
  credentials: number;
  /** Members of its programme that are not erased. */
  members: number;
}

type PerTenant = (tenants: readonly string[]) => Promise<Array<{ tenant: string; count: number }>>;

/** What the organisations read of other modules, each through its owner's view, one call per page. */
export interface OrgReads {
  /** Credential types per tenant (credential-types). */
  types: PerTenant;
  /** Credentials issued per tenant (issuance). */
  credentials: PerTenant;
  /** Members not erased per tenant (membership). */
  members: PerTenant;
  /** Each tenant's tenant-admins, removed ones left out, by username (operators). */
  tenantAdmins(tenants: readonly string[]): Promise<TenantAdmin[]>;
}

export interface OrgServiceDeps {
  orgs: OrgStore;
  reads: OrgReads;
  uow: UnitOfWork;
  tenants: TenantService;
  operators: OperatorService;
  types: TypeService;
  urls: IssuerUrls;
  fetcher: HttpFetcher;
  publicUrl: URL;
  clock: Clock;
  random: Random;
}

const unknownTenant = (slug: string) => new ServiceError('unknown_tenant', `No tenant has the slug "${slug}".`);

/** Organisations for the back office (docs/backoffice/orgs.md): tenants, their admins, lifecycle and domain. */
export class OrgService {
  /** Its custom domain (org-domains.ts). */
  readonly domains: OrgDomains;

  constructor(private readonly d: OrgServiceDeps) {
    this.domains = new OrgDomains(d, (slug) => this.requireOrg(slug));
  }

  // ----- organisations -----

  async create(input: { name: string } & Partial<TenantProfile>, actor: Actor) {
    const { name, ...rest } = input;
    const profile = Object.fromEntries(PROFILE_KEYS.filter((k) => rest[k] !== undefined).map((k) => [k, rest[k]]));
    const created = await this.d.tenants.create(name, actor, profile);
    return { auditSeq: created.auditSeq, org: await this.get(created.slug) };
  }

  /** A page of organisations' rows, by (createdAt, slug); `views` answers them. */
  list(filter: TenantListFilter): Promise<TenantRow[]> {
    return this.d.tenants.list(filter);
  }

  async get(slug: string): Promise<OrgView> {
    return (await this.views([await this.requireOrg(slug)]))[0] as OrgView;
  }

  /** The organisations' views, with each owner's counts and the admins read once for them all. */
  async views(rows: readonly TenantRow[]): Promise<OrgView[]> {
    const slugs = rows.map((r) => r.slug);
    const [counts, admins, domains] = await Promise.all([this.counts(slugs), this.adminsOf(slugs), this.d.orgs.domains(slugs)]);
    return rows.map((r) => {
      const domain = domains.get(r.slug);
      return {
        slug: r.slug,
        name: r.name,
        did: this.d.tenants.didOf(r.slug),
        status: r.status,
        statusSince: isoOrNull(r.statusSince),
        createdAt: iso(r.createdAt),
        profile: Object.fromEntries(PROFILE_KEYS.map((k) => [k, r[k]])) as unknown as TenantProfile,
        counts: counts.get(r.slug) ?? { types: 0, credentials: 0, members: 0 },
        domain: { state: domain?.state ?? 'none', domain: domain?.domain ?? null },
        admins: admins.get(r.slug) ?? [],
      };
    });
  }

  /** Each organisation's counts: one read of each owner for them all. */
  async counts(slugs: readonly string[]): Promise<Map<string, OrgCounts>> {
    const out = new Map<string, OrgCounts>(slugs.map((s) => [s, { types: 0, credentials: 0, members: 0 }]));
    if (slugs.length === 0) return out;
    const [types, credentials, members] = await Promise.all([
      this.d.reads.types(slugs),
      this.d.reads.credentials(slugs),
      this.d.reads.members(slugs),
    ]);
    for (const r of types) (out.get(r.tenant) as OrgCounts).types = r.count;
    for (const r of credentials) (out.get(r.tenant) as OrgCounts).credentials = r.count;
    for (const r of members) (out.get(r.tenant) as OrgCounts).members = r.count;
    return out;
  }

  /** Each organisation's tenant-admins, by username. */
  private async adminsOf(slugs: readonly string[]): Promise<Map<string, AdminView[]>> {
    const out = new Map<string, AdminView[]>(slugs.map((s) => [s, []]));
    if (slugs.length === 0) return out;
    for (const a of await this.d.reads.tenantAdmins(slugs)) out.get(a.tenant)?.push({ username: a.username, status: a.status });
    return out;
  }

  private async requireOrg(slug: string): Promise<TenantRow> {
    const row = await this.d.tenants.find(slug);
    if (!row) throw unknownTenant(slug);
    return row;
  }

  // ----- admins -----

  async admins(slug: string): Promise<{ slug: string; admins: AdminView[] }> {
    await this.requireOrg(slug);
    return { slug, admins: (await this.adminsOf([slug])).get(slug) ?? [] };
  }

  /**
   * An operator already scoped to the organisation given the tenant-admin role. A new person is
   * never made here: operators are created by invitation, by those who may write operators
   * (docs/security.md, "Separation of duties"). The change, and its audit entry
   * (`operator.roles_changed`), are the operator service's own.
   */
  async addAdmin(slug: string, input: { username: string }, actor: Actor) {
    await this.requireOrg(slug);
    const op = await this.d.operators.record(input.username);
    if (!op || op.status === 'removed') {
      throw new ServiceError(
        'unknown_operator',
        `No operator "${input.username}" (or it was removed). A new admin is invited: POST /api/admin/people/operators with its e-mail, roles ["tenant-admin"] and tenant "${slug}".`,
      );
    }
    if (op.tenant !== slug) {
      throw new ServiceError(
        'operator_scope',
        op.tenant === null
          ? `The operator "${op.username}" is platform-wide; an organisation's admin is scoped to it.`
          : `The operator "${op.username}" is scoped to another organisation.`,
      );
    }
    const roles = op.roles.includes('tenant-admin') ? op.roles : [...op.roles, 'tenant-admin' as const];
    // The scope is written again, not kept: whatever changed it meanwhile, a tenant-admin is this org's.
    const changed = await this.d.operators.setRoles(op.username, roles, slug, actor);
    return { auditSeq: changed.auditSeq, admin: { username: changed.username, status: changed.status } };
  }

  /**
   * Takes the tenant-admin role away (the operator keeps its other roles and its scope). The last
   * admin may go too: the platform's operators manage every organisation, so none is left
   * without a way back (docs/backoffice/orgs.md).
   */
  async removeAdmin(slug: string, username: string, actor: Actor) {
    await this.requireOrg(slug);
    const op = await this.d.operators.record(username);
    if (!op || op.status === 'removed' || op.tenant !== slug || !op.roles.includes('tenant-admin')) {
      throw new ServiceError('unknown_operator', `The organisation ${slug} has no admin "${username}".`);
    }
    const changed = await this.d.operators.setRoles(
      username,
      op.roles.filter((r) => r !== 'tenant-admin'),
      undefined,
      actor,
    );
    return { auditSeq: changed.auditSeq, admin: { username: changed.username, status: changed.status } };
  }

  // ----- lifecycle -----

  async lifecycle(slug: string): Promise<LifecycleView> {
    const row = await this.requireOrg(slug);
    const changes = await this.d.orgs.history(slug, HISTORY_LIMIT);
    return {
      slug,
      status: row.status,
      since: isoOrNull(row.statusSince),
      reason: row.statusReason,
      changes: changes.map((c) => ({
        seq: c.seq,
        status: c.status,
        actor: c.actor,
        reason: c.reason,
        approvalId: c.approvalId,
        at: iso(c.at),
      })),
    };
  }

  /** Refuses what a suspension could not do: an unknown tenant, the platform tenant, a suspended one. */
  async checkSuspendable(slug: string): Promise<void> {
    if (slug === ROOT_SLUG) throw new ServiceError('org_state', 'The platform tenant root cannot be suspended.');
    const { status } = await this.d.tenants.status(slug);
    if (status === 'suspended') throw new ServiceError('org_state', `The organisation ${slug} is already suspended.`);
  }

  /** The four-eyes action: filed by POST /orgs/{slug}/suspend, run when a second operator approves. */
  suspendAction(): ApprovalAction<SuspendParams> {
    return {
      name: SUSPEND_ACTION,
      summary: 'Suspend an organisation: it issues nothing, and its integration tokens are refused, until reactivated.',
      params: Type.Object(
        { slug: Type.String({ minLength: 1, maxLength: 48 }), reason: Type.String({ minLength: 1, maxLength: 500 }) },
        { additionalProperties: false },
      ),
      roles: ['owner', 'ops'],
      tenantOf: () => null,
      check: (params) => this.checkSuspendable(params.slug),
      execute: async (_tx, params, context) => {
        if (params.slug === ROOT_SLUG) throw new ServiceError('org_state', 'The platform tenant root cannot be suspended.');
        const change = await this.changeStatus(
          params.slug,
          'suspended',
          params.reason,
          context.actor,
          {
            approvalId: context.approvalId,
            requestedBy: context.requestedBy,
          },
          context.now,
        );
        return { slug: params.slug, status: 'suspended', change: change.change };
      },
    };
  }

  /** Direct, without a second operator: reactivating takes away a restriction. */
  async reactivate(slug: string, reason: string, actor: Actor): Promise<{ auditSeq: number; lifecycle: LifecycleView }> {
    const { auditSeq } = await this.changeStatus(slug, 'active', reason, actor, null);
    return { auditSeq, lifecycle: await this.lifecycle(slug) };
  }

  /**
   * The one way an organisation's status changes: the conditional write, its history, the audit
   * entry and the event, in one unit of work (which joins the approval's, for a suspension).
   */
  private changeStatus(
    slug: string,
    to: 'active' | 'suspended',
    reason: string,
    actor: Actor,
    approval: { approvalId: string; requestedBy: string } | null,
    now = this.d.clock.now(),
  ): Promise<{ auditSeq: number; change: number }> {
    const from = to === 'active' ? 'suspended' : 'active';
    return this.d.uow.run(async ({ audit }) => {
      if (!(await this.d.tenants.transition(slug, from, to, reason, now))) {
        await this.d.tenants.status(slug); // unknown_tenant when there is none
        throw new ServiceError('org_state', `The organisation ${slug} is ${to === 'active' ? 'not' : 'already'} suspended.`);
      }
      const change = await this.d.orgs.appendHistory({
        tenant: slug,
        status: to,
        actor: actorLabel(actor),
        reason,
        approvalId: approval?.approvalId ?? null,
        at: now,
      });
      const action = to === 'active' ? 'org.reactivated' : 'org.suspended';
      const detail = approval ? { ...approval, reason } : { reason };
      const data = { slug, did: this.d.tenants.didOf(slug) };
      const auditSeq = await audit.append({ actor, action, tenant: slug, target: slug, detail }, [
        to === 'active'
          ? { type: 'org.reactivated', tenant: slug, data }
          : { type: 'org.suspended', tenant: slug, data: { ...data, ...(approval ? { approvalId: approval.approvalId } : {}) } },
      ]);
      return { auditSeq, change: change.seq };
    });
  }

  // ----- branding preview -----

  /**
   * The issuer metadata's `display`, each credential configuration's display, and the manifest as
   * they would be with these settings; nothing is written. With `tenant`, its profile and types
   * under the settings given (null clears a field); without, a new organisation of that name.
   */
  async previewBranding(input: { tenant?: string; name: string } & Partial<TenantProfile>) {
    const name = normaliseName(input.name);
    const base = input.tenant === undefined ? undefined : await this.d.tenants.get(input.tenant);
    const slug = base?.slug ?? baseSlug(name);
    checkDemoMarks(isDemoSlug(slug), name, input.displayName);
    const now = this.d.clock.now();
    const record: TenantRecord = {
      slug,
      name,
      ...emptyProfile(),
      createdAt: base?.createdAt ?? now,
      updatedAt: now,
      ...(base ? Object.fromEntries(PROFILE_KEYS.map((k) => [k, base[k]])) : {}),
      ...Object.fromEntries(PROFILE_KEYS.filter((k) => input[k] !== undefined).map((k) => [k, input[k]])),
    };
    const types = base ? await this.d.types.list(base.slug) : [];
    const metadata = issuerMetadata(this.d.urls, record, types);
    const manifest = base
      ? { ...(await this.d.types.manifest(base.slug)), name: record.displayName ?? record.name }
      : { name: record.displayName ?? record.name, did: this.d.tenants.didOf(slug), types: [] };
    return {
      slug,
      display: metadata.display,
      configurations: Object.fromEntries(
        Object.entries(metadata.credential_configurations_supported).map(([id, c]) => [id, c.credential_metadata.display]),
      ),
      manifest,
    };
  }
}
