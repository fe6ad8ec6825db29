import { sql } from 'kysely';
import type { TenantStatus } from '../../../ports/tenant-store.ts';
import type { SuspendedTenant, TenantHit, TenantNames, TenantsViews } from '../../../ports/tenants-views.ts';
import type { TenantWindow, TimeKeyset } from '../../../ports/view-records.ts';
import type { Db } from '../connect.ts';
import { beforeKeyset } from '../keyset.ts';
import { containsCi } from '../text-match.ts';
import { inTenant, inWindow } from '../windowed.ts';
import { SqlTenantStore } from './sql-tenant-store.ts';

/** The tenants module's published views (ports/tenants-views.ts). */
export class SqlTenantsViews implements TenantsViews {
  constructor(private readonly db: Db) {}

  async names(): Promise<TenantNames[]> {
    const rows = await this.db.selectFrom('tenants').select(['slug', 'name', 'display_name']).execute();
    return rows.map((r) => ({ slug: r.slug, name: r.name, displayName: r.display_name }));
  }

  async slugsStartingWith(prefix: string): Promise<string[]> {
    // Case-sensitive, without LIKE's wildcards.
    const rows = await this.db
      .selectFrom('tenants')
      .select('slug')
      .where(sql<boolean>`substr(slug, 1, ${sql.lit(prefix.length)}) = ${prefix}`)
      .orderBy('slug')
      .execute();
    return rows.map((r) => r.slug);
  }

  async search(q: string, tenant: string | null, cap: number): Promise<TenantHit[]> {
    const rows = await this.db
      .selectFrom('tenants')
      .select(['slug', 'name'])
      .where((eb) => eb.or([containsCi('slug', q), containsCi('name', q)]))
      .where(inTenant(tenant, 'slug'))
      .orderBy('slug')
      .limit(cap)
      .execute();
    return rows.map((r) => ({ slug: r.slug, name: r.name }));
  }

  async slugs(tenant: string | null, after: string | undefined, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('tenants')
      .select('slug')
      .where(inTenant(tenant, 'slug'))
      .$if(after !== undefined, (qb) => qb.where('slug', '>', after as string))
      .orderBy('slug')
      .limit(limit)
      .execute();
    return rows.map((r) => r.slug);
  }

  // The tenant store's own one-row read.
  status(slug: string): Promise<TenantStatus | undefined> {
    return new SqlTenantStore(this.db).status(slug);
  }

  async suspended(f: TenantWindow & { before?: TimeKeyset; limit: number }): Promise<SuspendedTenant[]> {
    let query = this.db
      .selectFrom('tenants')
      .select(['slug', 'status_since', 'status_reason'])
      .where('status', '=', 'suspended')
      .where('status_since', 'is not', null)
      .where(inTenant(f.tenant, 'slug'))
      .where(inWindow('status_since', f));
    if (f.before) query = query.where(beforeKeyset('status_since', 'slug', f.before));
    const rows = await query.orderBy('status_since', 'desc').orderBy('slug', 'desc').limit(f.limit).execute();
    return rows.map((r) => ({ slug: r.slug, since: Number(r.status_since), reason: r.status_reason }));
  }
}
