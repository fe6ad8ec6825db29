import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { Type } from '@sinclair/typebox';
import { constantTimeEqual } from '../../../adapters/crypto/secrets.ts';
import { SqlOrgStore } from '../../../adapters/sql/sql-org-store.ts';
import { SqlTenantStore } from '../../../adapters/sql/sql-tenant-store.ts';
import { type Actor, actorLabel } from '../../../core/actor.ts';
import type { Clock } from '../../../core/clock.ts';
import { normaliseName } from '../../../core/display-text.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { IssuerUrls } from '../../../core/issuer-urls.ts';
import { baseSlug, DEMO_NAME_SUFFIX, isDemoName, isDemoSlug, ROOT_SLUG } from '../../../core/slug.ts';
import { FetchRefused, type HttpFetcher } from '../../../ports/http-fetcher.ts';
import type { OperatorStore } from '../../../ports/operator-store.ts';
import type { OffboardingRow, OrgAdmin, OrgCounts, OrgDomain, OrgRow, OrgStore } from '../../../ports/org-store.ts';
import type { TenantProfile, TenantRecord, TenantStatusName, TenantStore } from '../../../ports/tenant-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import type { TypeService } from '../../credential-types/type-service.ts';
import { issuerMetadata } from '../../issuance/metadata.ts';
import type { OperatorService } from '../../operators/operator-service.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import type { ApprovalAction } from '../approval-desk.ts';
import { iso, isoOrNull, type ListParams, page } from '../kit.ts';

/** The four-eyes action a suspension is filed as (docs/backoffice/orgs.md, "Suspension"). */
export const SUSPEND_ACTION = 'org.suspend';

/** Changes of status `GET /lifecycle` answers, newest first. */
export const HISTORY_LIMIT = 100;
/** The verification document is small: anything longer is not ours. */
export const DOCUMENT_MAX_BYTES = 16 * 1024;
export const DOCUMENT_PATH = '/.well-known/openrail-domain.json';

const PROFILE_KEYS = ['displayName', 'description', 'logoUri', 'primaryColor', 'backgroundColor', 'textColor'] as const;

export interface OrgView {
  slug: string;
  name: string;
  did: string;
  status: TenantStatusName;
  statusSince: string | null;
  createdAt: string;
  profile: TenantProfile;
  counts: OrgCounts;
  domain: { state: DomainStateView; domain: string | null };
  admins: OrgAdmin[];
}

export type DomainStateView = 'none' | OrgDomain['state'];

export interface DomainView {
  slug: string;
  state: DomainStateView;
  domain: string | null;
  documentUrl: string | null;
  requestedAt: string | null;
  verifiedAt: string | null;
  activatedAt: string | null;
  revokedAt: string | null;
}

export interface LifecycleView {
  slug: string;
  status: TenantStatusName;
  since: string | null;
  reason: string | null;
  changes: { seq: number; status: TenantStatusName; actor: string; reason: string; approvalId: string | null; at: string }[];
}

export interface SuspendParams {
  slug: string;
  reason: string;
}

export type OrgStores = { tenants: TenantStore; orgs: OrgStore };

export interface OrgServiceDeps {
  orgs: OrgStore;
  uow: UnitOfWork<OrgStores>;
  tenants: TenantService;
  operators: OperatorService;
  operatorStore: OperatorStore;
  types: TypeService;
  urls: IssuerUrls;
  fetcher: HttpFetcher;
  publicUrl: URL;
  clock: Clock;
}

const unknownTenant = (slug: string) => new ServiceError('unknown_tenant', `No tenant has the slug "${slug}".`);

/** Organisations for the back office (docs/backoffice/orgs.md): tenants, their admins, lifecycle and domain. */
export class OrgService {
  constructor(private readonly d: OrgServiceDeps) {}

  // ----- organisations -----

  async create(input: { name: string } & Partial<TenantProfile>, actor: Actor) {
    const { name, ...rest } = input;
    const profile = Object.fromEntries(PROFILE_KEYS.filter((k) => rest[k] !== undefined).map((k) => [k, rest[k]]));
    const created = await this.d.tenants.create(name, actor, profile);
    return { auditSeq: created.auditSeq, org: await this.get(created.slug) };
  }

  async list(params: ListParams, filters: { status?: TenantStatusName; q?: string }) {
    const after = params.after;
    if (after !== undefined && (after.length !== 2 || typeof after[0] !== 'number' || typeof after[1] !== 'string')) {
      throw new ServiceError('invalid_request', 'cursor is not a cursor this list answered.');
    }
    const rows = await this.d.orgs.list({
      tenant: params.tenant,
      ...filters,
      ...(params.since === undefined ? {} : { since: params.since }),
      ...(params.until === undefined ? {} : { until: params.until }),
      ...(after ? { after: [after[0] as number, after[1] as string] as const } : {}),
      limit: params.limit + 1,
    });
    const views = await this.views(rows.slice(0, params.limit));
    const shown = page(
      rows,
      params.limit,
      (r) => [r.createdAt, r.slug],
      (r) => r.slug,
    );
    return { orgs: shown.rows.map((slug) => views.get(slug) as OrgView), nextCursor: shown.nextCursor };
  }

  async get(slug: string): Promise<OrgView> {
    const row = await this.d.orgs.get(slug);
    if (!row) throw unknownTenant(slug);
    return (await this.views([row])).get(slug) as OrgView;
  }

  private async views(rows: OrgRow[]): Promise<Map<string, OrgView>> {
    const slugs = rows.map((r) => r.slug);
    const [counts, admins, domains] = await Promise.all([
      this.d.orgs.counts(slugs),
      this.d.orgs.admins(slugs),
      this.d.orgs.domains(slugs),
    ]);
    return new Map(
      rows.map((r) => {
        const domain = domains.get(r.slug);
        const view: OrgView = {
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
        return [r.slug, view];
      }),
    );
  }

  private async requireOrg(slug: string): Promise<OrgRow> {
    const row = await this.d.orgs.get(slug);
    if (!row) throw unknownTenant(slug);
    return row;
  }

  // ----- admins -----

  async admins(slug: string): Promise<{ slug: string; admins: OrgAdmin[] }> {
    await this.requireOrg(slug);
    return { slug, admins: (await this.d.orgs.admins([slug])).get(slug) ?? [] };
  }

  /**
   * A new operator scoped to the organisation with the tenant-admin role (with `password`), or an
   * operator already scoped to it given that role. The change, and its audit entry
   * (`operator.created` or `operator.roles_changed`), are the operator service's own.
   */
  async addAdmin(slug: string, input: { username: string; password?: string }, actor: Actor) {
    await this.requireOrg(slug);
    if (input.password !== undefined) {
      const made = await this.d.operators.create(
        { username: input.username, password: input.password, roles: ['tenant-admin'], tenant: slug },
        actor,
      );
      return { auditSeq: made.auditSeq, admin: { username: made.username, status: made.status } };
    }
    const op = await this.d.operatorStore.get(input.username);
    if (!op || op.status === 'removed') {
      throw new ServiceError('unknown_operator', `No operator "${input.username}" (or it was removed).`);
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
    const op = await this.d.operatorStore.get(username);
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
      execute: async (tx, params, context) => {
        const { slug, reason } = params;
        if (slug === ROOT_SLUG) throw new ServiceError('org_state', 'The platform tenant root cannot be suspended.');
        const tenants = new SqlTenantStore(tx.db);
        if (!(await tenants.setStatus(slug, 'active', 'suspended', reason, context.now))) {
          if (!(await tenants.status(slug))) throw unknownTenant(slug);
          throw new ServiceError('org_state', `The organisation ${slug} is already suspended.`);
        }
        const change = await new SqlOrgStore(tx.db).appendHistory({
          tenant: slug,
          status: 'suspended',
          actor: actorLabel(context.actor),
          reason,
          approvalId: context.approvalId,
          at: context.now,
        });
        await tx.audit.append({
          actor: context.actor,
          action: 'org.suspended',
          tenant: slug,
          target: slug,
          detail: { approvalId: context.approvalId, requestedBy: context.requestedBy, reason },
        });
        await tx.events.emit({
          type: 'org.suspended',
          tenant: slug,
          data: { slug, did: this.d.tenants.didOf(slug), approvalId: context.approvalId },
        });
        return { slug, status: 'suspended', change: change.seq };
      },
    };
  }

  /** Direct, without a second operator: reactivating takes away a restriction. */
  async reactivate(slug: string, reason: string, actor: Actor): Promise<{ auditSeq: number; lifecycle: LifecycleView }> {
    const now = this.d.clock.now();
    const auditSeq = await this.d.uow.run(async ({ tenants, orgs, audit, events }) => {
      if (!(await tenants.setStatus(slug, 'suspended', 'active', reason, now))) {
        if (!(await tenants.status(slug))) throw unknownTenant(slug);
        throw new ServiceError('org_state', `The organisation ${slug} is not suspended.`);
      }
      await orgs.appendHistory({ tenant: slug, status: 'active', actor: actorLabel(actor), reason, approvalId: null, at: now });
      const seq = await audit.append({ actor, action: 'org.reactivated', tenant: slug, target: slug, detail: { reason } });
      await events.emit({ type: 'org.reactivated', tenant: slug, data: { slug, did: this.d.tenants.didOf(slug) } });
      return seq;
    });
    return { auditSeq, lifecycle: await this.lifecycle(slug) };
  }

  // ----- custom domain -----

  async domain(slug: string): Promise<DomainView> {
    await this.requireOrg(slug);
    return this.domainView(slug, await this.d.orgs.domain(slug));
  }

  private domainView(slug: string, d: OrgDomain | undefined): DomainView {
    return {
      slug,
      state: d?.state ?? 'none',
      domain: d?.domain ?? null,
      documentUrl: d && d.state !== 'revoked' ? documentUrl(d.domain) : null,
      requestedAt: d ? iso(d.requestedAt) : null,
      verifiedAt: isoOrNull(d?.verifiedAt ?? null),
      activatedAt: isoOrNull(d?.activatedAt ?? null),
      revokedAt: isoOrNull(d?.revokedAt ?? null),
    };
  }

  /** Records a pending domain with a fresh token, in place of none, a pending one or a revoked one. */
  async requestDomain(slug: string, raw: string, actor: Actor): Promise<{ auditSeq: number; domain: DomainView }> {
    await this.requireOrg(slug);
    const domain = checkDomain(raw, this.d.publicUrl);
    const now = this.d.clock.now();
    const record: OrgDomain = {
      tenant: slug,
      domain,
      state: 'pending',
      token: randomBytes(24).toString('base64url'),
      requestedAt: now,
      verifiedAt: null,
      activatedAt: null,
      revokedAt: null,
      updatedAt: now,
    };
    const auditSeq = await this.d.uow.run(async ({ orgs, audit }) => {
      const current = await orgs.domain(slug);
      if (current && (current.state === 'verified' || current.state === 'active')) {
        throw new ServiceError(
          'domain_state',
          `The organisation's domain ${current.domain} is ${current.state}: revoke it first.`,
        );
      }
      if (await orgs.domainHolder(domain, slug)) throw domainTaken(domain);
      if (!(await orgs.putPending(record, [null, 'pending', 'revoked']))) throw domainTaken(domain);
      return audit.append({ actor, action: 'org.domain_requested', tenant: slug, target: slug, detail: { domain } });
    });
    return { auditSeq, domain: this.domainView(slug, record) };
  }

  /** The JSON file to publish at https://<domain>/.well-known/openrail-domain.json. */
  async domainDocument(slug: string) {
    await this.requireOrg(slug);
    const d = await this.d.orgs.domain(slug);
    if (!d || d.state === 'revoked') throw new ServiceError('domain_state', `The organisation ${slug} has no custom domain.`);
    return { url: documentUrl(d.domain), document: this.document(d) };
  }

  private document(d: OrgDomain) {
    return { tenant: d.tenant, did: this.d.tenants.didOf(d.tenant), token: d.token, issuedAt: iso(d.requestedAt) };
  }

  /**
   * Fetches the document from the domain through the guarded fetcher (https, public addresses,
   * no redirects, bounded) and marks the domain verified when it carries this organisation's slug,
   * DID and token. The fetch runs outside any transaction; the move is conditional on the token
   * fetched for, so a domain replaced meanwhile is not verified by the old one's document.
   */
  async verifyDomain(slug: string, actor: Actor): Promise<{ auditSeq: number; domain: DomainView }> {
    await this.requireOrg(slug);
    const d = await this.d.orgs.domain(slug);
    if (d?.state !== 'pending') {
      throw new ServiceError('domain_state', `The organisation ${slug} has no pending domain to verify.`);
    }
    const url = documentUrl(d.domain);
    let body: string;
    try {
      body = (await this.d.fetcher.get(url, { accept: 'application/json' })).body;
    } catch (err) {
      if (!(err instanceof FetchRefused)) throw err;
      throw new ServiceError('domain_unreachable', `${url} could not be fetched: ${err.message}.`);
    }
    if (Buffer.byteLength(body) > DOCUMENT_MAX_BYTES) {
      throw new ServiceError('domain_unreachable', `${url} answered more than ${DOCUMENT_MAX_BYTES} bytes.`);
    }
    if (!matches(body, this.document(d))) {
      throw new ServiceError('domain_mismatch', `${url} does not carry this organisation's slug, DID and token.`);
    }
    return this.move(slug, d, ['pending'], 'verified', 'org.domain_verified', actor);
  }

  async activateDomain(slug: string, actor: Actor) {
    await this.requireOrg(slug);
    const d = await this.d.orgs.domain(slug);
    if (d?.state !== 'verified') {
      throw new ServiceError('domain_state', `Only a verified domain is activated; the organisation's is ${d?.state ?? 'none'}.`);
    }
    return this.move(slug, d, ['verified'], 'active', 'org.domain_activated', actor);
  }

  async revokeDomain(slug: string, actor: Actor) {
    await this.requireOrg(slug);
    const d = await this.d.orgs.domain(slug);
    if (!d || d.state === 'revoked') throw new ServiceError('domain_state', `The organisation ${slug} has no domain to revoke.`);
    return this.move(slug, d, ['pending', 'verified', 'active'], 'revoked', 'org.domain_revoked', actor);
  }

  private async move(
    slug: string,
    d: OrgDomain,
    from: OrgDomain['state'][],
    to: OrgDomain['state'],
    action: string,
    actor: Actor,
  ): Promise<{ auditSeq: number; domain: DomainView }> {
    const now = this.d.clock.now();
    const auditSeq = await this.d.uow.run(async ({ orgs, audit }) => {
      if (!(await orgs.moveDomain(slug, from, to, now, d.token))) {
        throw new ServiceError('domain_state', `The organisation's domain changed meanwhile; read it again.`);
      }
      return audit.append({ actor, action, tenant: slug, target: slug, detail: { domain: d.domain, from: d.state } });
    });
    return { auditSeq, domain: await this.domain(slug) };
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
    const demo = isDemoSlug(slug);
    if (!demo && (isDemoName(name) || (input.displayName && isDemoName(input.displayName)))) {
      throw new ServiceError('reserved_name', 'Names ending in "(Demo)" are reserved for demonstration tenants.');
    }
    if (demo && input.displayName && !input.displayName.endsWith(DEMO_NAME_SUFFIX)) {
      throw new ServiceError('reserved_name', `A demonstration tenant's display name must end with "${DEMO_NAME_SUFFIX}".`);
    }
    const now = this.d.clock.now();
    const record: TenantRecord = {
      slug,
      name,
      displayName: null,
      description: null,
      logoUri: null,
      primaryColor: null,
      backgroundColor: null,
      textColor: null,
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

  // ----- offboarding -----

  async offboarding(params: ListParams, kind: OffboardingRow['kind'] | undefined) {
    const after = params.after;
    if (
      after !== undefined &&
      (after.length !== 3 ||
        typeof after[0] !== 'number' ||
        (after[1] !== 'tenant' && after[1] !== 'operator') ||
        typeof after[2] !== 'string')
    ) {
      throw new ServiceError('invalid_request', 'cursor is not a cursor this list answered.');
    }
    const rows = await this.d.orgs.offboarding({
      tenant: params.tenant,
      ...(kind ? { kind } : {}),
      ...(params.since === undefined ? {} : { since: params.since }),
      ...(params.until === undefined ? {} : { until: params.until }),
      ...(after ? { after: [after[0] as number, after[1] as string, after[2] as string] as const } : {}),
      limit: params.limit + 1,
    });
    const shown = page(
      rows,
      params.limit,
      (r) => [r.since, r.kind, r.id],
      (r) => ({ kind: r.kind, id: r.id, status: r.status, tenant: r.tenant, since: iso(r.since), reason: r.reason }),
    );
    return { entries: shown.rows, nextCursor: shown.nextCursor };
  }
}

const domainTaken = (domain: string) => new ServiceError('domain_taken', `Another organisation has the domain ${domain}.`);

export const documentUrl = (domain: string) => `https://${domain}${DOCUMENT_PATH}`;

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A custom domain: a lower-cased DNS host name of two labels or more, at most 253 characters,
 * not an IP address (a last label of digits only reads as one) and not the deployment's own host
 * or a name under it.
 */
export function checkDomain(raw: string, publicUrl: URL): string {
  const domain = raw.toLowerCase();
  const labels = domain.split('.');
  const invalid = (why: string) => new ServiceError('invalid_domain', `The domain ${why}.`);
  if (domain.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l))) {
    throw invalid('is not a DNS host name of two labels or more (letters, digits and inner hyphens)');
  }
  if (isIP(domain) !== 0 || /^[0-9]+$/.test(labels.at(-1) as string)) throw invalid('is an IP address, not a name');
  const own = publicUrl.hostname.toLowerCase();
  if (domain === own || domain.endsWith(`.${own}`)) throw invalid("is this deployment's own host");
  return domain;
}

function matches(body: string, expected: { tenant: string; did: string; token: string }): boolean {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return false;
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return false;
  const { tenant, did, token } = doc as Record<string, unknown>;
  return (
    tenant === expected.tenant && did === expected.did && typeof token === 'string' && constantTimeEqual(token, expected.token)
  );
}
