import { type Actor, actorLabel } from '../../../core/actor.ts';
import { parseClaimSpec } from '../../../core/claims/claim-spec.ts';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import { iso } from '../../../http/admin/kit.ts';
import type { ComplianceStore, InventoryRow, TypeWithPurpose } from '../../../ports/compliance-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import { CREDENTIAL_PURPOSES, PURPOSES, type Purpose } from './purposes.ts';

/** Credential types, and webhook endpoints, one record reads at most. */
export const RECORD_MAX = 5000;

const typeView = (t: TypeWithPurpose) => ({
  tenant: t.tenant,
  typeId: t.typeId,
  name: t.name,
  claims: t.claims,
  purposeId: t.purposeId,
  boundAt: t.boundAt === null ? null : iso(t.boundAt),
  boundBy: t.boundBy,
});

/** A credential type as its owner's view answers it: its names and claim specs. */
export interface RegisteredType {
  tenant: string;
  typeId: string;
  name: string;
  claims: string[];
}

/** What the record reads of other modules, each through its owner's view. */
export interface RecordReads {
  /** Every credential type (by tenant and type id), or one tenant's, at most `limit` (the credential-types module). */
  types(limit: number, tenant?: string): Promise<RegisteredType[]>;
  /** Whether the tenant has the type. */
  hasType(tenant: string, typeId: string): Promise<boolean>;
  /** The webhook endpoints, by tenant and id, at most `limit` (the webhooks module). */
  webhooks(limit: number): Promise<Array<{ tenant: string; url: string; events: string[]; active: boolean }>>;
  /** Live channels per tenant, by tenant (the wallet module). */
  activeChannels(): Promise<Array<{ tenant: string; active: number }>>;
  /** The holder-data registry's inventory, each column counted by its table's owner. */
  inventory(): Promise<InventoryRow[]>;
}

/** What the record says of the deployment itself: who controls it, and where its data is stored. */
export interface Controller {
  name: string;
  url: string;
  did: string;
  storage: { engine: 'sqlite' | 'postgres'; where: string };
}

/**
 * The record of processing activities (GDPR Art. 30; docs/backoffice/compliance.md, "Record of
 * processing"), generated from the configuration and the data when asked: the purposes, the
 * credential types bound to each, the data categories with their row counts (the holder-data
 * registry), the recipients (webhook endpoints, channels), retention and storage.
 */
export class RecordOfProcessing {
  constructor(
    private readonly deps: {
      store: ComplianceStore;
      uow: UnitOfWork;
      reads: RecordReads;
      controller: Controller;
      clock: Clock;
    },
  ) {}

  async purposes() {
    const types = await this.typesWithPurposes();
    return {
      purposes: PURPOSES.map((p) => ({
        ...this.purposeHead(p),
        types: types.filter((t) => t.purposeId === p.purposeId).map((t) => ({ tenant: t.tenant, typeId: t.typeId })),
      })),
    };
  }

  /** A tenant's credential types with the purposes they are bound to. */
  async typesOf(tenant: string) {
    return (await this.typesWithPurposes(tenant)).map(typeView);
  }

  async record() {
    const [inventory, types, recipients] = await Promise.all([
      this.deps.reads.inventory(),
      this.typesWithPurposes(),
      this.recipients(),
    ]);
    return {
      generatedAt: iso(this.deps.clock.now()),
      controller: this.deps.controller,
      activities: PURPOSES.filter((p) => p.kind === 'activity').map((p) => ({
        ...this.purposeHead(p),
        categories: categoriesOf(inventory.filter((c) => p.tables.includes(c.table))),
      })),
      credentialPurposes: PURPOSES.filter((p) => p.kind === 'credential').map((p) => {
        const bound = types.filter((t) => t.purposeId === p.purposeId);
        return {
          ...this.purposeHead(p),
          types: bound.map(typeView),
          claims: [...new Set(bound.flatMap((t) => t.claims))].sort(),
        };
      }),
      unboundTypes: types.filter((t) => t.purposeId === null).map(typeView),
      recipients,
    };
  }

  /** Binds a credential type to the credential purpose it is issued for (replacing one it had). */
  async bindType(tenant: string, typeId: string, purposeId: string, actor: Actor) {
    if (!CREDENTIAL_PURPOSES.includes(purposeId)) {
      throw new ServiceError('invalid_request', `A credential type is bound to one of: ${CREDENTIAL_PURPOSES.join(', ')}.`);
    }
    const now = this.deps.clock.now();
    return this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.reads.hasType(tenant, typeId))) throw new ServiceError('unknown_type');
      await this.deps.store.bindPurpose(tenant, typeId, purposeId, now, actorLabel(actor));
      const auditSeq = await audit.append({ actor, action: 'ropa.type_bound', tenant, target: typeId, detail: { purposeId } });
      return {
        ok: true as const,
        auditSeq,
        binding: { tenant, typeId, purposeId, boundAt: iso(now), boundBy: actorLabel(actor) },
      };
    });
  }

  /** Every credential type, or one tenant's, with the purpose it is bound to (at most RECORD_MAX). */
  private async typesWithPurposes(tenant?: string): Promise<TypeWithPurpose[]> {
    const types = await this.deps.reads.types(RECORD_MAX, tenant);
    const bound = new Map((await this.deps.store.purposesOf(types)).map((p) => [`${p.tenant}/${p.typeId}`, p]));
    return types.map((t) => {
      const p = bound.get(`${t.tenant}/${t.typeId}`);
      return {
        tenant: t.tenant,
        typeId: t.typeId,
        name: t.name,
        claims: t.claims.map((spec) => parseClaimSpec(spec).key),
        purposeId: p?.purposeId ?? null,
        boundAt: p?.boundAt ?? null,
        boundBy: p?.boundBy ?? null,
      };
    });
  }

  /** The deployment's recipients of personal data: webhook endpoints (their origins) and tenants' live channels. */
  private async recipients() {
    const [hooks, channels] = await Promise.all([this.deps.reads.webhooks(RECORD_MAX), this.deps.reads.activeChannels()]);
    return {
      webhooks: hooks.map((h) => ({ tenant: h.tenant, origin: new URL(h.url).origin, events: h.events, active: h.active })),
      channels,
    };
  }

  private purposeHead(p: Purpose) {
    return {
      purposeId: p.purposeId,
      name: p.name,
      description: p.description,
      kind: p.kind,
      subjects: [...p.subjects],
      retention: p.retention,
    };
  }
}

/** The data categories of some registered columns, with the rows that hold each. */
function categoriesOf(columns: readonly InventoryRow[]) {
  const byCategory = new Map<string, { category: string; names: string; columns: string[]; rows: number }>();
  for (const c of columns) {
    const found = byCategory.get(c.category) ?? { category: c.category, names: c.names, columns: [], rows: 0 };
    found.columns.push(`${c.table}.${c.column}`);
    found.rows = Math.max(found.rows, c.rows);
    byCategory.set(c.category, found);
  }
  return [...byCategory.values()];
}
