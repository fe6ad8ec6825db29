import type { Selectable, Updateable } from 'kysely';
import type { StoredSigningKey } from '../../ports/signing-key-store.ts';
import type {
  TenantListFilter,
  TenantProfile,
  TenantRecord,
  TenantRow,
  TenantStatus,
  TenantStatusName,
  TenantStore,
} from '../../ports/tenant-store.ts';
import type { Db } from './connect.ts';
import type { TenantsTable } from './schema.ts';
import { containsCi } from './sql-backoffice-rows.ts';
import { SqlSigningKeyStore } from './sql-signing-key-store.ts';
import { atomically } from './sql-unit-of-work.ts';
import { Statement } from './statement.ts';
import { inTenant, inWindow, pastCursor } from './windowed.ts';

/** The token and credential endpoints read this on every request: written once, prepared once per connection. */
const statusOf = new Statement<{ status: TenantStatusName; status_since: number | string | null; status_reason: string | null }>(
  'select status, status_since, status_reason from tenants where slug = ?',
);

const toRow = (row: Selectable<TenantsTable>): TenantRow => ({
  slug: row.slug,
  name: row.name,
  displayName: row.display_name,
  description: row.description,
  logoUri: row.logo_uri,
  primaryColor: row.primary_color,
  backgroundColor: row.background_color,
  textColor: row.text_color,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
  status: row.status,
  statusSince: row.status_since === null ? null : Number(row.status_since),
  statusReason: row.status_reason,
});

type ProfileColumn = 'display_name' | 'description' | 'logo_uri' | 'primary_color' | 'background_color' | 'text_color';

const PROFILE_COLUMNS: Record<keyof TenantProfile, ProfileColumn> = {
  displayName: 'display_name',
  description: 'description',
  logoUri: 'logo_uri',
  primaryColor: 'primary_color',
  backgroundColor: 'background_color',
  textColor: 'text_color',
};

export class SqlTenantStore implements TenantStore {
  constructor(private readonly db: Db) {}

  async create(t: TenantRecord, keys: StoredSigningKey[]): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      const result = await trx
        .insertInto('tenants')
        .values({
          slug: t.slug,
          name: t.name,
          display_name: t.displayName,
          description: t.description,
          logo_uri: t.logoUri,
          primary_color: t.primaryColor,
          background_color: t.backgroundColor,
          text_color: t.textColor,
          created_at: t.createdAt,
          updated_at: t.updatedAt,
        })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
      const keyStore = new SqlSigningKeyStore(trx);
      for (const key of keys) {
        if (key.tenant !== t.slug) throw new Error('a new tenant can only be given its own keys');
        if (!(await keyStore.insert(key))) throw new Error(`duplicate ${key.purpose} key for new tenant ${t.slug}`);
      }
      return true;
    });
  }

  async get(slug: string): Promise<TenantRow | undefined> {
    const row = await this.db.selectFrom('tenants').selectAll().where('slug', '=', slug).executeTakeFirst();
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
    const values: Updateable<TenantsTable> = { updated_at: now };
    for (const [field, column] of Object.entries(PROFILE_COLUMNS) as Array<[keyof TenantProfile, ProfileColumn]>) {
      if (patch[field] !== undefined) values[column] = patch[field];
    }
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
