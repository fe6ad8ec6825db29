import type { Static } from '@sinclair/typebox';
import { afterCommit } from '../../app/transactions.ts';
import { type Actor, actorLabel } from '../../core/actor.ts';
import type { ClaimSpec } from '../../core/claims/claim-spec.ts';
import { parseClaimSpecs } from '../../core/claims/claim-spec.ts';
import type { Clock } from '../../core/clock.ts';
import { normaliseName } from '../../core/display-text.ts';
import { ServiceError } from '../../core/errors.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { MAX_SLUG_LENGTH, slugify } from '../../core/slug.ts';
import type { CredentialTypeRecord, CredentialTypeStore, KeyAttestationRequirement } from '../../ports/credential-type-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import { type MdocRequest, readFormats } from './formats.ts';
import type { Claim, TypeBody } from './routes.ts';

export type ClaimView = Static<typeof Claim>;

export type TypeView = Static<typeof TypeBody>;

export const claimView = (c: ClaimSpec): ClaimView => ({
  name: c.key,
  kind: c.kind,
  mandatory: true,
  ...(c.options ? { options: c.options } : {}),
});

/** What a registration asks of formats (docs/mdoc.md, "Types with formats"): SD-JWT VC alone when it asks nothing. */
export interface FormatsRequest {
  formats?: string[];
  mdoc?: MdocRequest;
}

/** The audit detail of a registration: its name, and its formats when it is not SD-JWT VC alone. */
const registered = (t: CredentialTypeRecord) =>
  t.mdoc ? { name: t.name, formats: t.formats, doctype: t.mdoc.doctype } : { name: t.name };

/** How long a process keeps a type's validity before reading it again (docs/operations.md, "Expiry"). */
export const VALIDITY_TTL_MS = 30_000;
/** The longest validity a type may have, in days (ten years). */
export const MAX_VALIDITY_DAYS = 3650;

export interface TypeServiceDeps {
  types: CredentialTypeStore;
  uow: UnitOfWork;
  tenants: TenantService;
  urls: IssuerUrls;
  clock: Clock;
  /** Whether this deployment trusts any wallet provider (OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE). */
  trustsWalletProviders: boolean;
}

/**
 * Credential types (docs/credential-types.md): registered whole, immutable, addressed by typeId.
 * Beside each, operations may set a validity (docs/operations.md, "Expiry"): the credentials
 * issued under it from then on carry an `exp`.
 */
export class TypeService {
  private readonly cache = new Map<string, CredentialTypeRecord>();
  private readonly validityCache = new Map<string, { value: number | null; until: number }>();
  private readonly attestationCache = new Map<string, { value: KeyAttestationRequirement | null; until: number }>();

  constructor(private readonly deps: TypeServiceDeps) {}

  /** A type's setting read again at most every VALIDITY_TTL_MS, so a change reaches every process within that. */
  private async fresh<T>(cache: Map<string, { value: T; until: number }>, key: string, read: () => Promise<T>): Promise<T> {
    const now = this.deps.clock.now();
    const cached = cache.get(key);
    if (cached && cached.until > now) return cached.value;
    const value = await read();
    cache.set(key, { value, until: now + VALIDITY_TTL_MS });
    return value;
  }

  view(t: CredentialTypeRecord): TypeView {
    return {
      tenant: t.tenant,
      typeId: t.typeId,
      name: t.name,
      vct: this.deps.urls.vct(t.tenant, t.typeId),
      claims: t.claims.map(claimView),
      // An SD-JWT VC type answers as it always has; a type offered as mdoc says so (docs/mdoc.md).
      ...(t.mdoc ? { formats: t.formats, mdoc: t.mdoc } : {}),
    };
  }

  async register(
    tenant: string,
    rawName: string,
    specs: string[],
    actor: Actor,
    formats: FormatsRequest = {},
  ): Promise<TypeView> {
    return (await this.registerAudited(tenant, rawName, specs, actor, formats)).type;
  }

  /** Registers a type and answers it with the sequence number of its audit entry (POST /api/admin/types). */
  async registerAudited(
    tenant: string,
    rawName: string,
    specs: string[],
    actor: Actor,
    formats: FormatsRequest = {},
  ): Promise<{ type: TypeView; auditSeq: number }> {
    const record = await this.prepare(tenant, rawName, specs, formats);
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.types.create(record))) {
        throw new ServiceError(
          'conflict',
          `Tenant ${tenant} already has a credential type "${record.typeId}"; types are immutable.`,
        );
      }
      return audit.append({ actor, action: 'type.registered', tenant, target: record.typeId, detail: registered(record) });
    });
    return { type: this.view(record), auditSeq };
  }

  /** Registers a type unless the tenant has one with its typeId already (seeding). */
  async ensure(tenant: string, name: string, specs: string[], actor: Actor, formats: FormatsRequest = {}): Promise<void> {
    const record = await this.prepare(tenant, name, specs, formats);
    await this.deps.uow.run(async ({ audit }) => {
      if (await this.deps.types.create(record)) {
        await audit.append({ actor, action: 'type.registered', tenant, target: record.typeId, detail: registered(record) });
      }
    });
  }

  private async prepare(tenant: string, rawName: string, specs: string[], asked: FormatsRequest): Promise<CredentialTypeRecord> {
    const name = normaliseName(rawName);
    const claims = parseClaimSpecs(specs);
    const typeId = slugify(name).slice(0, MAX_SLUG_LENGTH).replace(/-+$/, '');
    if (!typeId) throw new ServiceError('invalid_request', 'body/name must contain at least one letter or digit.');
    const { formats, mdoc } = readFormats(asked, claims, { origin: this.deps.urls.origin, tenant, typeId });
    await this.deps.tenants.get(tenant);
    return { tenant, typeId, name, claims, formats, mdoc, createdAt: this.deps.clock.now() };
  }

  /** Types are immutable, so a type once read is kept (unknown ones are asked for every time). */
  async find(tenant: string, typeId: string): Promise<CredentialTypeRecord | undefined> {
    const key = `${tenant}\u0000${typeId}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const type = await this.deps.types.get(tenant, typeId);
    if (type) afterCommit(() => this.cache.set(key, type));
    return type;
  }

  async get(tenant: string, typeId: string): Promise<CredentialTypeRecord> {
    const type = await this.find(tenant, typeId);
    if (!type) throw new ServiceError('unknown_type', `Tenant ${tenant} has no credential type "${typeId}".`);
    return type;
  }

  list(tenant: string): Promise<CredentialTypeRecord[]> {
    return this.deps.types.list(tenant);
  }

  /**
   * The type's validity in days, or null: read again at most every VALIDITY_TTL_MS, so a change
   * reaches every process within that.
   */
  validityOf(tenant: string, typeId: string): Promise<number | null> {
    return this.fresh(this.validityCache, `${tenant}\u0000${typeId}`, () => this.deps.types.validity(tenant, typeId));
  }

  /** Sets (or with null clears) a type's validity, audited as `type.validity.set`. */
  async setValidity(tenant: string, typeId: string, days: number | null, actor: Actor, actorName: string) {
    await this.get(tenant, typeId);
    const { previous, auditSeq } = await this.deps.uow.run(async ({ audit }) => {
      const previous = await this.deps.types.setValidity(tenant, typeId, days, this.deps.clock.now(), actorName);
      const auditSeq = await audit.append({
        actor,
        action: 'type.validity.set',
        tenant,
        target: typeId,
        detail: { validityDays: days, previousDays: previous },
      });
      return { previous, auditSeq };
    });
    afterCommit(() => this.validityCache.delete(`${tenant}\u0000${typeId}`));
    return { previous, auditSeq };
  }

  /**
   * What the type requires of key attestations (docs/haip.md, "Key attestation"), or null: read
   * again at most every VALIDITY_TTL_MS, as its validity is.
   */
  keyAttestationOf(tenant: string, typeId: string): Promise<KeyAttestationRequirement | null> {
    return this.fresh(this.attestationCache, `${tenant}\u0000${typeId}`, () => this.deps.types.keyAttestation(tenant, typeId));
  }

  /** The requirements of a tenant's types, read now (for its issuer metadata). */
  keyAttestations(tenant: string): Promise<Map<string, KeyAttestationRequirement>> {
    return this.deps.types.keyAttestations(tenant);
  }

  /** Sets (or with null clears) a type's key attestation requirement, audited as `type.key_attestation.set`. */
  async setKeyAttestation(tenant: string, typeId: string, required: KeyAttestationRequirement | null, actor: Actor) {
    await this.get(tenant, typeId);
    if (required !== null && !this.deps.trustsWalletProviders) {
      throw new ServiceError(
        'wallet_trust_unconfigured',
        'This deployment trusts no wallet provider (OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE), so it could check no key attestation.',
      );
    }
    const previous = await this.deps.uow.run(async ({ audit }) => {
      const previous = await this.deps.types.setKeyAttestation(
        tenant,
        typeId,
        required,
        this.deps.clock.now(),
        actorLabel(actor),
      );
      await audit.append({
        actor,
        action: 'type.key_attestation.set',
        tenant,
        target: typeId,
        detail: { required, previous },
      });
      return previous;
    });
    afterCommit(() => this.attestationCache.delete(`${tenant}\u0000${typeId}`));
    return previous;
  }

  /** The types that have a validity, of one tenant or every one. */
  validities(tenant: string | null) {
    return this.deps.types.validities(tenant);
  }

  /** Every tenant's types (the public verification catalog). */
  catalog(): Promise<CredentialTypeRecord[]> {
    return this.deps.types.catalog();
  }

  /** GET /manifest: what a wallet needs to white-label the tenant and render its types. */
  async manifest(slug: string) {
    const tenant = await this.deps.tenants.get(slug);
    return {
      name: tenant.displayName ?? tenant.name,
      did: this.deps.tenants.didOf(tenant.slug),
      types: (await this.list(tenant.slug)).map((t) => {
        const v = this.view(t);
        return { typeId: v.typeId, name: v.name, vct: v.vct, manifest: { claims: v.claims } };
      }),
    };
  }
}
