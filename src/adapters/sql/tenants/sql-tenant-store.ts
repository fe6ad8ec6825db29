import type { Selectable } from 'kysely';
import type { StoredSigningKey } from '../../../ports/signing-key-store.ts';
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
} from '../../../ports/tenant-store.ts';
import type { Db } from '../connect.ts';
import { insertSigningKey } from '../kernel/kernel-statements.ts';
import { bool, rowCodec } from '../row-codec.ts';
import type { TenantsTable } from '../schema.ts';
import { atomically } from '../sql-unit-of-work.ts';
import { Statement } from '../statement.ts';
import { containsCi } from '../text-match.ts';
import { inTenant, inWindow, pastCursor } from '../windowed.ts';

/** The token and credential endpoints read this on every request: written once, prepared once per connection. */
const statusOf = new Statement<{ status: TenantStatusName; status_since: number | string | null; status_reason: string | null }>(
  'select status, status_since, status_reason from tenants where slug = ?',
);

/** Every tenant-scoped request reads its tenant (the authorization pages, the back office): prepared once too. */
const tenantOf = new Statement<Selectable<TenantsTable>>('select * from tenants where slug = ?');

const tenants = rowCodec<TenantRow, TenantsTable>()(
  'slug name displayName description logoUri primaryColor backgroundColor textColor createdAt updatedAt status statusSince statusReason signInUrl',
  { haipIssuance: bool },
);
const toRow = tenants.record;

export class SqlTenantStore implements TenantStore {
  constructor(private readonly db: Db) {}

  async create(t: TenantRecord, keys: StoredSigningKey[]): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      const result = await trx
        .insertInto('tenants')
        .values(
          tenants.row({ ...t, status: 'active', statusSince: null, statusReason: null, haipIssuance: false, signInUrl: null }),
        )
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
      for (const key of keys) {
        if (key.tenant !== t.slug) throw new Error('a new tenant can only be given its own keys');
        if (!(await insertSigningKey(trx, key))) throw new Error(`duplicate ${key.purpose} key for new tenant ${t.slug}`);
      }
      return true;
    });
  }

  async get(slug: string): Promise<TenantRow | undefined> {
    const row = await tenantOf.first(this.db, [slug]);
    return row ? toRow(row) : undefined;
  }

  async list(f: TenantListFilter): Promise<TenantRow[]> {
    let query = this.db.selectFrom('tenants').selectAll().where(inTenant(f.tenant, 'slug'));
    if (f.status !== undefined) query = query.where('status', '=', f.status);
    if (f.q !== undefined && f.q !== '') {
      const q = f.q;
      query = query.where((eb) => eb.or([containsCi('name', q), containsCi('slug', q)]));
    }
    query = query.where(inWindow('created_at', f));
    query = query.where(pastCursor(['created_at', 'slug'], f.after, 'asc'));
    const rows = await query.orderBy('created_at').orderBy('slug').limit(f.limit).execute();
    return rows.map(toRow);
  }

  async updateProfile(slug: string, patch: Partial<TenantProfile>, now: number): Promise<TenantRow | undefined> {
    // Only the profile's own fields, whatever else the object carries.
    const profile = Object.fromEntries(Object.keys(emptyProfile()).map((k) => [k, patch[k as keyof TenantProfile]]));
    const values = tenants.patch({ ...profile, updatedAt: now });
    const result = await this.db.updateTable('tenants').set(values).where('slug', '=', slug).executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    return this.get(slug);
  }

  async setAuthorizationFlow(
    slug: string,
    patch: Partial<AuthorizationFlowSettings>,
    now: number,
  ): Promise<TenantRow | undefined> {
    const values = tenants.patch({ haipIssuance: patch.haipIssuance, signInUrl: patch.signInUrl, updatedAt: now });
    const result = await this.db.updateTable('tenants').set(values).where('slug', '=', slug).executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    return this.get(slug);
  }

  async status(slug: string): Promise<TenantStatus | undefined> {
    const row = await statusOf.first(this.db, [slug]);
    if (!row) return undefined;
    return {
      status: row.status,
      since: row.status_since === null ? null : Number(row.status_since),
      reason: row.status_reason,
    };
  }

  async setStatus(slug: string, from: TenantStatusName, to: TenantStatusName, reason: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('tenants')
      .set({ status: to, status_since: now, status_reason: reason, updated_at: now })
      .where('slug', '=', slug)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async slugsStartingWith(prefix: string): Promise<string[]> {
    // Slugs hold only [a-z0-9-], so the prefix carries no LIKE wildcards; the filter is a second guard.
    const rows = await this.db.selectFrom('tenants').select('slug').where('slug', 'like', `${prefix}%`).execute();
    return rows.map((r) => r.slug).filter((s) => s.startsWith(prefix));
  }
}
