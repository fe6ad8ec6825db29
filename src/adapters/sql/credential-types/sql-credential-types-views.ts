import type { CredentialTypesViews, TypeHit, TypeSummary, TypesOfId, TypeWindow } from '../../../ports/credential-types-views.ts';
import type { TenantCount } from '../../../ports/view-records.ts';
import type { Db } from '../connect.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { CredentialTypesTable } from '../schema.ts';
import { containsCi } from '../text-match.ts';
import { inTenant, inWindow } from '../windowed.ts';

const summaries = rowCodec<TypeSummary, CredentialTypesTable>()('tenant typeId name createdAt', { claims: json, formats: json });
const COLUMNS = ['tenant', 'type_id', 'name', 'claims', 'formats', 'mdoc', 'created_at'] as const;

/** The credential-types module's published views of `credential_types` (ports/credential-types-views.ts). */
export class SqlCredentialTypesViews implements CredentialTypesViews {
  constructor(private readonly db: Db) {}

  async search(q: string, tenant: string | null, cap: number): Promise<TypeHit[]> {
    const rows = await this.db
      .selectFrom('credential_types')
      .select(['tenant', 'type_id', 'name'])
      .where((eb) => eb.or([containsCi('type_id', q), containsCi('name', q)]))
      .where(inTenant(tenant))
      .orderBy('tenant')
      .orderBy('type_id')
      .limit(cap)
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, typeId: r.type_id, name: r.name }));
  }

  async types(
    tenant: string | null,
    window: TypeWindow,
    after: readonly [string, string] | undefined,
    limit: number,
  ): Promise<TypeSummary[]> {
    const rows = await this.db
      .selectFrom('credential_types')
      .select(COLUMNS)
      .where(inTenant(tenant))
      .where(inWindow('created_at', window))
      .$if(after !== undefined, (qb) => {
        const [t, id] = after as readonly [string, string];
        return qb.where((eb) => eb.or([eb('tenant', '>', t), eb.and([eb('tenant', '=', t), eb('type_id', '>', id)])]));
      })
      .orderBy('tenant')
      .orderBy('type_id')
      .limit(limit)
      .execute();
    return rows.map(summaries.record);
  }

  async type(tenant: string, typeId: string): Promise<TypeSummary | undefined> {
    const row = await this.db
      .selectFrom('credential_types')
      .select(COLUMNS)
      .where('tenant', '=', tenant)
      .where('type_id', '=', typeId)
      .executeTakeFirst();
    return row && summaries.record(row);
  }

  async byTypeId(tenant: string | null, window: TypeWindow, after: string | undefined, limit: number): Promise<TypesOfId[]> {
    const ids = await this.db
      .selectFrom('credential_types')
      .select('type_id')
      .distinct()
      .where(inTenant(tenant))
      .where(inWindow('created_at', window))
      .$if(after !== undefined, (qb) => qb.where('type_id', '>', after as string))
      .orderBy('type_id')
      .limit(limit)
      .execute();
    if (ids.length === 0) return [];
    const typeIds = ids.map((r) => r.type_id);
    const rows = await this.db
      .selectFrom('credential_types')
      .select(COLUMNS)
      .where('type_id', 'in', typeIds)
      .where(inTenant(tenant))
      .where(inWindow('created_at', window))
      .orderBy('tenant')
      .execute();
    const types = rows.map(summaries.record);
    return typeIds.map((typeId) => ({ typeId, types: types.filter((t) => t.typeId === typeId) }));
  }

  async typesPerTenant(tenants: readonly string[]): Promise<TenantCount[]> {
    if (tenants.length === 0) return [];
    const rows = await this.db
      .selectFrom('credential_types')
      .select(['tenant', (eb) => eb.fn.countAll().as('n')])
      .where('tenant', 'in', [...tenants])
      .groupBy('tenant')
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, count: Number(r.n) }));
  }
}
