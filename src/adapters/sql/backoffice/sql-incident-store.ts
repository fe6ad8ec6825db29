import type { PageWindow } from '../../../core/page.ts';
import type { IncidentRecord, IncidentState, IncidentStore, Severity } from '../../../ports/incident-store.ts';
import type { Db } from '../connect.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { IncidentsTable } from '../schema.ts';
import { newestFirst } from '../windowed.ts';

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
    let query = this.db.selectFrom('incidents').selectAll();
    if (filter.state !== undefined) query = query.where('state', '=', filter.state);
    if (filter.severity !== undefined) query = query.where('severity', '=', filter.severity);
    const rows = await newestFirst(query, ['detected_at', 'id'], page).execute();
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
}
