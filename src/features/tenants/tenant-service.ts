import type { Static } from '@sinclair/typebox';
import { afterCommit } from '../../app/transactions.ts';
import { type Actor, SYSTEM_SEED } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { buildDidDocument, type DidDocument, platformDid, tenantDid } from '../../core/did-web.ts';
import { normaliseName } from '../../core/display-text.ts';
import { ServiceError } from '../../core/errors.ts';
import { baseSlug, DEMO_NAME_SUFFIX, isDemoName, isDemoSlug, ROOT_SLUG, slugCandidate } from '../../core/slug.ts';
import type { KeyStore } from '../../ports/key-store.ts';
import type { StoredSigningKey } from '../../ports/signing-key-store.ts';
import {
  type AuthorizationFlowSettings,
  emptyProfile,
  type TenantListFilter,
  type TenantProfile,
  type TenantRecord,
  type TenantRow,
  type TenantStatus,
  type TenantStatusName,
  type TenantStore,
} from '../../ports/tenant-store.ts';
import type { Recorders, UnitOfWork } from '../../ports/unit-of-work.ts';
import type { Tenant } from './routes.ts';

/** A tenant about to be made inside a caller's unit of work (`prepareCreation`, then `createIn`). */
export interface PreparedTenant {
  name: string;
  slug: string;
  key: StoredSigningKey;
}

export type TenantView = Static<typeof Tenant>;

export const DEMO_TENANT = { slug: 'demo-transit', name: `Metro Transit${DEMO_NAME_SUFFIX}` } as const;

/** Bounded so a flood of same-named tenants cannot make creation loop forever. */
const MAX_SLUG_ATTEMPTS = 20;

/** Tenants and their identities (docs/tenants.md). */
export class TenantService {
  private readonly known = new Set<string>();

  constructor(
    private readonly tenants: TenantStore,
    private readonly uow: UnitOfWork,
    private readonly keys: KeyStore,
    private readonly publicUrl: URL,
    private readonly clock: Clock,
  ) {}

  /** The root tenant is the platform itself: its DID is the platform DID. */
  didOf(slug: string): string {
    return slug === ROOT_SLUG ? platformDid(this.publicUrl) : tenantDid(this.publicUrl, slug);
  }

  /** The tenant's DID document: its issuer keys assert, the verifier key authenticates. */
  async didDocument(slug: string): Promise<DidDocument> {
    const keys = await this.keys.publishedKeys(slug);
    const of = (purpose: string) => keys.filter((k) => k.purpose === purpose);
    return buildDidDocument(this.didOf(slug), { assertion: of('issuer'), authentication: of('verifier') });
  }

  view(t: TenantRecord): TenantView {
    return { slug: t.slug, name: t.name, did: this.didOf(t.slug) };
  }

  /**
   * The slug of an existing tenant, for the public paths that serve a suspended tenant as well
   * (nonce, status lists). Tenants are never deleted, so a slug once seen is remembered; an unknown
   * one is asked of the database every time. Only existence is remembered, never the status: a
   * path that must stop when the tenant is suspended asks `status` (read on every call), so a
   * suspension on another process takes effect on the next request. (Revisit when tenants can
   * be removed.)
   */
  async existing(slug: string): Promise<string> {
    if (!this.known.has(slug)) {
      await this.get(slug);
      afterCommit(() => this.known.add(slug));
    }
    return slug;
  }

  /**
   * Moves the tenant from `from` to `to` with one conditional write (docs/backoffice/orgs.md,
   * "Suspension"): false when it was not in `from` (or does not exist). Called from the back
   * office's unit of work, which records the change; it joins that transaction.
   */
  transition(slug: string, from: TenantStatusName, to: TenantStatusName, reason: string, now: number): Promise<boolean> {
    return this.tenants.setStatus(slug, from, to, reason, now);
  }

  /** The tenant's status, from the database on every call; `unknown_tenant` when there is none. */
  async status(slug: string): Promise<TenantStatus> {
    const status = await this.tenants.status(slug);
    if (!status) throw new ServiceError('unknown_tenant', `No tenant has the slug "${slug}".`);
    return status;
  }

  /**
   * The slug of a tenant that issues (docs/backoffice/orgs.md, "Suspension"): an unknown one is
   * `unknown_tenant`; a suspended one is refused with what `refusal` makes, the refusal of the
   * caller's surface (`tenant_suspended`, or an OAuth code at the token and credential endpoints).
   */
  async issuing(slug: string, refusal: (message: string) => ServiceError = suspendedRefusal): Promise<string> {
    assertIssuing(slug, await this.tenants.status(slug), refusal);
    return slug;
  }

  /** `issuing` with the tenant's whole row, read once. */
  async issuingRow(slug: string, refusal: (message: string) => ServiceError = suspendedRefusal): Promise<TenantRow> {
    const row = await this.tenants.get(slug);
    assertIssuing(slug, row, refusal);
    return row;
  }

  find(slug: string): Promise<TenantRow | undefined> {
    return this.tenants.get(slug);
  }

  /** The tenants rows, for the back office's organisations (docs/backoffice/orgs.md). */
  list(filter: TenantListFilter): Promise<TenantRow[]> {
    return this.tenants.list(filter);
  }

  async get(slug: string): Promise<TenantRow> {
    const tenant = await this.tenants.get(slug);
    if (!tenant) throw new ServiceError('unknown_tenant', `No tenant has the slug "${slug}".`);
    return tenant;
  }

  /**
   * POST /api/tenants: an ordinary tenant, never a demonstration one; with the seq of its
   * `tenant.created` entry. The back office's POST /api/admin/orgs may give its first profile too,
   * written in the same row.
   */
  async create(rawName: string, actor: Actor, profile: Partial<TenantProfile> = {}): Promise<TenantView & { auditSeq: number }> {
    const name = normaliseName(rawName);
    checkDemoMarks(false, name, profile.displayName);
    return this.underFreeSlug(name, (slug) => this.insert(slug, name, actor, profile));
  }

  /**
   * The first step of `createIn`, before the caller's unit of work opens: the name checked, its
   * first free slug, and the issuer key for it generated and certified, so that the transaction
   * does not wait for that.
   */
  async prepareCreation(rawName: string): Promise<PreparedTenant> {
    const name = normaliseName(rawName);
    checkDemoMarks(false, name, undefined);
    const slug = await this.freeSlug(name);
    return { name, slug, key: await this.keys.prepareKey(slug, 'issuer') };
  }

  /**
   * As `create`, called inside the caller's unit of work, which its own joins: the tenant is made
   * together with the rest of that use case, or not at all (a partner linked to a new tenant: of
   * two links at once, the one refused leaves no tenant behind). Under the prepared slug, or, when
   * another tenant took it meanwhile, the next free one with a key made for it here.
   */
  async createIn(prepared: PreparedTenant, actor: Actor): Promise<TenantView & { auditSeq: number }> {
    const { name, slug, key } = prepared;
    const created = await this.uow.run((recorders) => this.insertIn(recorders, slug, name, actor, {}, key));
    if (created) return { ...this.view(created.record), auditSeq: created.auditSeq };
    return this.underFreeSlug(name, async (next) => {
      const nextKey = await this.keys.prepareKey(next, 'issuer');
      return this.uow.run((recorders) => this.insertIn(recorders, next, name, actor, {}, nextKey));
    });
  }

  /** The first slug of the name no tenant has yet (a concurrent insert may still take it). */
  private async freeSlug(name: string): Promise<string> {
    const base = baseSlug(name);
    const taken = new Set(await this.tenants.slugsStartingWith(base));
    let n = 1;
    while (taken.has(slugCandidate(base, n))) n++;
    return slugCandidate(base, n);
  }

  /** Inserts under the first free slug of the name, looking again when a concurrent insert took it. */
  private async underFreeSlug(
    name: string,
    insert: (slug: string) => Promise<{ record: TenantRecord; auditSeq: number } | undefined>,
  ): Promise<TenantView & { auditSeq: number }> {
    for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
      const created = await insert(await this.freeSlug(name));
      if (created) return { ...this.view(created.record), auditSeq: created.auditSeq };
      // Another request took the slug between the read and the insert: look again.
    }
    throw new ServiceError('conflict', 'Could not find a free slug for this name; try a more distinctive name.');
  }

  /** Seeds the platform tenant (and its verifier key) and, unless disabled, the demonstration tenant. */
  async seed(options: { demo: boolean; platformName: string }): Promise<void> {
    // Every start seeds: a key is made only for a tenant not there yet (in a token, an object).
    if (!(await this.tenants.get(ROOT_SLUG))) await this.insert(ROOT_SLUG, options.platformName, SYSTEM_SEED);
    await this.keys.ensureKey(ROOT_SLUG, 'issuer');
    await this.keys.ensureKey(ROOT_SLUG, 'verifier');
    if (options.demo && !(await this.tenants.get(DEMO_TENANT.slug))) {
      const created = await this.insert(DEMO_TENANT.slug, DEMO_TENANT.name, SYSTEM_SEED);
      // The demonstration tenant shows HAIP issuance from its first start (docs/haip.md).
      if (created) await this.tenants.setAuthorizationFlow(DEMO_TENANT.slug, { haipIssuance: true }, this.clock.now());
      await this.keys.ensureKey(DEMO_TENANT.slug, 'issuer');
    }
  }

  async updateProfile(slug: string, patch: Partial<TenantProfile>, actor: Actor): Promise<TenantRecord> {
    const tenant = await this.get(slug);
    checkDemoMarks(isDemoSlug(tenant.slug), undefined, patch.displayName);
    return this.uow.run(async ({ audit }) => {
      const updated = await this.tenants.updateProfile(slug, patch, this.clock.now());
      if (!updated) throw new ServiceError('unknown_tenant', `No tenant has the slug "${slug}".`);
      const fields = Object.keys(patch).filter((k) => patch[k as keyof TenantProfile] !== undefined);
      await audit.append({ actor, action: 'tenant.profile_updated', tenant: slug, target: slug, detail: { fields } });
      return updated;
    });
  }

  /**
   * POST /api/tenants/authorization-flow (docs/haip.md, "Issuance"): turns the authorization code
   * flow on or off and sets the holders' sign-in hook, with its audit entry.
   */
  async setAuthorizationFlow(slug: string, patch: Partial<AuthorizationFlowSettings>, actor: Actor): Promise<TenantRow> {
    if (patch.signInUrl) checkSignInUrl(patch.signInUrl);
    await this.get(slug);
    return this.uow.run(async ({ audit }) => {
      const updated = await this.tenants.setAuthorizationFlow(slug, patch, this.clock.now());
      if (!updated) throw new ServiceError('unknown_tenant', `No tenant has the slug "${slug}".`);
      const detail = { haipIssuance: updated.haipIssuance, signInUrl: updated.signInUrl !== null };
      await audit.append({ actor, action: 'tenant.authorization_flow_updated', tenant: slug, target: slug, detail });
      return updated;
    });
  }

  /**
   * Inserts tenant and issuer key together, with its audit entry and `org.created` event;
   * undefined when the slug is already taken (nothing is written then).
   */
  private async insert(
    slug: string,
    name: string,
    actor: Actor,
    profile: Partial<TenantProfile> = {},
  ): Promise<{ record: TenantRecord; auditSeq: number } | undefined> {
    const key = await this.keys.prepareKey(slug, 'issuer');
    // A key made for a tenant that was not created (its slug taken meanwhile, a refusal) is discarded.
    const created = await this.uow
      .run((recorders) => this.insertIn(recorders, slug, name, actor, profile, key))
      .catch(async (err) => {
        await this.keys.discard(key);
        throw err;
      });
    if (!created) await this.keys.discard(key);
    return created;
  }

  private async insertIn(
    { audit }: Recorders,
    slug: string,
    name: string,
    actor: Actor,
    profile: Partial<TenantProfile>,
    key: StoredSigningKey,
  ): Promise<{ record: TenantRecord; auditSeq: number } | undefined> {
    const now = this.clock.now();
    const fields = (Object.keys(profile) as (keyof TenantProfile)[]).filter((k) => profile[k] !== undefined);
    const given = Object.fromEntries(fields.map((k) => [k, profile[k]])) as Partial<TenantProfile>;
    const record: TenantRecord = { slug, name, ...emptyProfile(), ...given, createdAt: now, updatedAt: now };
    if (!(await this.tenants.create(record, [key]))) return undefined;
    const did = this.didOf(slug);
    const detail = { name, did, ...(fields.length > 0 ? { fields } : {}) };
    const auditSeq = await audit.append({ actor, action: 'tenant.created', tenant: slug, target: slug, detail }, [
      { type: 'org.created', tenant: slug, data: { slug, did, demo: isDemoSlug(slug) } },
    ]);
    return { record, auditSeq };
  }
}

const suspendedRefusal = (message: string) => new ServiceError('tenant_suspended', message);

/**
 * The rule of `issuing`, for a path that read the tenant's status itself (the token and credential
 * endpoints read it with the offer, docs/scaling.md): none is `unknown_tenant`, a suspended one is
 * refused with what `refusal` makes.
 */
export function assertIssuing(
  slug: string,
  tenant: { status: TenantStatusName } | undefined,
  refusal: (message: string) => ServiceError,
): asserts tenant {
  if (!tenant) throw new ServiceError('unknown_tenant', `No tenant has the slug "${slug}".`);
  if (tenant.status === 'suspended') {
    throw refusal(`The issuer ${slug} is suspended: it issues nothing until it is reactivated.`);
  }
}

/** A sign-in hook is an https URL without a fragment that the URL parser reads (the schema admits more). */
function checkSignInUrl(value: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' || url.hash !== '' || value.includes('#')) {
    throw new ServiceError('invalid_request', 'signInUrl must be an https URL without a fragment.');
  }
}

/**
 * The demo-tenant law on names (interface spec, Demo-tenant law; docs/tenants.md): a
 * demonstration tenant is never un-marked, so its display name keeps the "(Demo)" mark; any other
 * tenant may not wear it, in its name or its display name.
 */
export function checkDemoMarks(demo: boolean, name: string | undefined, displayName: string | null | undefined): void {
  if (demo && displayName && !displayName.endsWith(DEMO_NAME_SUFFIX)) {
    throw new ServiceError('reserved_name', `A demonstration tenant's display name must end with "${DEMO_NAME_SUFFIX}".`);
  }
  if (!demo && ((name !== undefined && isDemoName(name)) || (displayName && isDemoName(displayName)))) {
    throw new ServiceError('reserved_name', 'Names ending in "(Demo)" are reserved for demonstration tenants.');
  }
}
