import { type Expression, type SqlBool, sql } from 'kysely';
import type { PageWindow } from '../../../core/page.ts';
import type {
  AffectedTenant,
  IncidentRecord,
  IncidentScope,
  IncidentState,
  IncidentStore,
  Severity,
} from '../../../ports/incident-store.ts';
import type { Db } from '../connect.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { IncidentsTable } from '../schema.ts';
import { inWindow, pastCursor } from '../windowed.ts';

/** Incidents read to find those touching a tenant, at most: the register is small. */
const TOUCHING_READ = 1000;

const incidents = rowCodec<IncidentRecord, IncidentsTable>()(
  'id title description severity state detectedAt openedAt openedBy updatedAt assessedAt notifiedAt closedAt',
  { scope: json },
);
const toIncident = incidents.record;

/** The breach register (docs/backoffice/compliance.md, "Incidents"). */
export class SqlIncidentStore implements IncidentStore {
  constructor(private readonly db: Db) {}

  async add(incident: IncidentRecord): Promise<void> {
    await this.db.insertInto('incidents').values(incidents.row(incident)).execute();
  }

  async get(id: string): Promise<IncidentRecord | undefined> {
    const row = await this.db.selectFrom('incidents').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toIncident(row);
  }

  async list(
    filter: { state?: IncidentState | undefined; severity?: Severity | undefined },
    page: PageWindow<readonly [number, string]>,
  ): Promise<IncidentRecord[]> {
    let query = this.db
      .selectFrom('incidents')
      .selectAll()
      .where(inWindow('detected_at', page))
      .where(pastCursor(['detected_at', 'id'], page.after, 'desc'));
    if (filter.state !== undefined) query = query.where('state', '=', filter.state);
    if (filter.severity !== undefined) query = query.where('severity', '=', filter.severity);
    const rows = await query.orderBy('detected_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
    return rows.map(toIncident);
  }

  async update(id: string, from: IncidentState, change: Partial<IncidentRecord>): Promise<boolean> {
    const result = await this.db
      .updateTable('incidents')
      .set(incidents.patch(change))
      .where('id', '=', id)
      .where('state', '=', from)
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async touching(tenant: string, limit: number): Promise<IncidentRecord[]> {
    // The scope is JSON; an incident narrowed to tenants names them in a "tenants" array.
    const rows = await this.db
      .selectFrom('incidents')
      .selectAll()
      .orderBy('detected_at', 'desc')
      .orderBy('id', 'desc')
      .limit(TOUCHING_READ)
      .execute();
    return rows
      .map(toIncident)
      .filter((i) => i.scope.tenants === undefined || i.scope.tenants.length === 0 || i.scope.tenants.includes(tenant))
      .slice(0, limit);
  }

  async affected(scope: IncidentScope, now: number): Promise<AffectedTenant[]> {
    const conditions: Expression<SqlBool>[] = [inWindow('c.issued_at', { since: scope.since, until: scope.until ?? now + 1 })];
    if (scope.tenants && scope.tenants.length > 0) conditions.push(sql<SqlBool>`c.tenant in (${sql.join(scope.tenants)})`);
    if (scope.types && scope.types.length > 0) {
      conditions.push(
        sql<SqlBool>`(${sql.join(
          scope.types.map((t) => sql`(c.tenant = ${t.tenant} and c.type_id = ${t.typeId})`),
          sql` or `,
        )})`,
      );
    }
    if (scope.keys && scope.keys.length > 0) {
      // A tenant signs every credential with its issuing key of the moment: the key's life, from
      // its creation to its retirement, is when it signed.
      conditions.push(sql<SqlBool>`exists (select 1 from signing_keys k
        where k.tenant = c.tenant and k.purpose = 'issuer' and k.created_at <= c.issued_at
          and (k.retired_at is null or k.retired_at > c.issued_at)
          and (${sql.join(
            scope.keys.map((k) => sql`(k.tenant = ${k.tenant} and k.kid = ${k.kid})`),
            sql` or `,
          )}))`);
    }
    const rows = await sql<{ tenant: string; credentials: number | string; revoked: number | string; accounts: number | string }>`
      select c.tenant as tenant, count(*) as credentials,
             count(c.revoked_at) as revoked,
             count(distinct case when c.holder_thumbprint <> '' then c.holder_thumbprint end) as accounts
      from issued_credentials c
      where ${sql.join(conditions, sql` and `)}
      group by c.tenant
      order by c.tenant`.execute(this.db);
    return rows.rows.map((r) => ({
      tenant: r.tenant,
      credentials: Number(r.credentials),
      revoked: Number(r.revoked),
      accounts: Number(r.accounts),
    }));
  }
}
