import { sql } from 'kysely';
import type { PageWindow } from '../../../core/page.ts';
import type {
  AttestationRecord,
  ComplianceRequestRecord,
  ComplianceStore,
  RequestFilter,
  RequestKind,
  StatementVersion,
  TypePurpose,
} from '../../../ports/compliance-store.ts';
import { approvalLive } from '../approvals/approvals-statements.ts';
import type { Db } from '../connect.ts';
import { insertOnce } from '../insert-once.ts';
import { rowCodec } from '../row-codec.ts';
import type { AttestationsTable, ComplianceRequestsTable } from '../schema.ts';
import { inWindow, newestFirst, pastCursor } from '../windowed.ts';

const requests = rowCodec<ComplianceRequestRecord, ComplianceRequestsTable>()(
  'id kind state subjectKind accountId identifier source identityCheck receivedAt dueAt filedBy filedAt decidedBy decidedAt outcome ground note approvalId receiptId statement',
  {},
);
const toRequest = requests.record;

const attestations = rowCodec<AttestationRecord, AttestationsTable>()(
  'id username tenant statementId version note attestedAt auditSeq',
  {},
);
const toAttestation = attestations.record;

/**
 * The compliance group's own records (docs/backoffice/compliance.md): data-subject requests,
 * attestations and the purposes credential types are bound to. The lookup over the holder-data
 * registry is each owner's (holder-records.ts); what other modules hold, their views answer.
 */
export class SqlComplianceStore implements ComplianceStore {
  constructor(private readonly db: Db) {}

  async add(request: ComplianceRequestRecord): Promise<void> {
    await this.db.insertInto('compliance_requests').values(requests.row(request)).execute();
  }

  async get(kind: RequestKind, id: string): Promise<ComplianceRequestRecord | undefined> {
    const row = await this.db
      .selectFrom('compliance_requests')
      .selectAll()
      .where('kind', '=', kind)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toRequest(row);
  }

  async list(filter: RequestFilter, page: PageWindow<readonly [number, string]>): Promise<ComplianceRequestRecord[]> {
    let query = this.db.selectFrom('compliance_requests').selectAll().where('kind', '=', filter.kind);
    if (filter.state !== undefined) query = query.where('state', '=', filter.state);
    const rows = await newestFirst(query, ['received_at', 'id'], page).execute();
    return rows.map(toRequest);
  }

  async decide(kind: RequestKind, id: string, change: Partial<ComplianceRequestRecord>): Promise<boolean> {
    const result = await this.db
      .updateTable('compliance_requests')
      .set(requests.patch(change))
      .where('kind', '=', kind)
      .where('id', '=', id)
      .where('state', '=', 'received')
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async addNegative(request: ComplianceRequestRecord): Promise<boolean> {
    // compliance_requests_one_negative (migration 0044) admits one standing negative answer per
    // subject: a second, however concurrent, inserts nothing.
    return insertOnce(this.db, 'compliance_requests', requests.row(request));
  }

  async decideAccess(
    id: string,
    change: Partial<ComplianceRequestRecord>,
    expected: { approvalId: string | null; now: number },
  ): Promise<boolean> {
    let query = this.db
      .updateTable('compliance_requests')
      .set(requests.patch(change))
      .where('kind', '=', 'access')
      .where('id', '=', id)
      .where('state', '=', 'received');
    if (expected.approvalId === null) query = query.where('approval_id', 'is', null);
    else {
      // The export's liveness is the approvals module's condition, held in this one statement.
      const live = approvalLive(expected.approvalId, expected.now);
      query = query.where('approval_id', '=', expected.approvalId).where((eb) => eb.not(live));
    }
    const result = await query.executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async byApproval(approvalId: string): Promise<ComplianceRequestRecord | undefined> {
    const row = await this.db
      .selectFrom('compliance_requests')
      .selectAll()
      .where('approval_id', '=', approvalId)
      .executeTakeFirst();
    return row && toRequest(row);
  }

  async aboutAccounts(limit: number, before?: readonly [number, string]): Promise<ComplianceRequestRecord[]> {
    const rows = await this.db
      .selectFrom('compliance_requests')
      .selectAll()
      .where('account_id', 'is not', null)
      .$call((q) => newestFirst(q, ['received_at', 'id'], { after: before, limit }))
      .execute();
    return rows.map(toRequest);
  }

  async openRequests(kind: RequestKind, now: number) {
    const row = await this.db
      .selectFrom('compliance_requests')
      .select((eb) => [
        eb.fn.countAll<number>().as('open'),
        eb.fn.sum<number>(sql`case when due_at < ${now} then 1 else 0 end`).as('overdue'),
        eb.fn.min<number>('due_at').as('next_due'),
      ])
      .where('kind', '=', kind)
      .where('state', '=', 'received')
      .executeTakeFirstOrThrow();
    return {
      open: Number(row.open),
      overdue: Number(row.overdue ?? 0),
      nextDue: row.next_due === null ? null : Number(row.next_due),
    };
  }

  async addAttestation(a: AttestationRecord): Promise<boolean> {
    return insertOnce(this.db, 'attestations', attestations.row(a), ['username', 'statement_id', 'version']);
  }

  async findAttestation(username: string, statementId: string, version: string): Promise<AttestationRecord | undefined> {
    const row = await this.db
      .selectFrom('attestations')
      .selectAll()
      .where('username', '=', username)
      .where('statement_id', '=', statementId)
      .where('version', '=', version)
      .executeTakeFirst();
    return row && toAttestation(row);
  }

  async attestations(
    filter: { username?: string | undefined; statementId?: string | undefined },
    page: PageWindow<readonly [number, string]>,
  ): Promise<AttestationRecord[]> {
    let query = this.db
      .selectFrom('attestations')
      .selectAll()
      .where(inWindow('attested_at', page))
      .where(pastCursor(['attested_at', 'id'], page.after, 'desc'));
    if (filter.username !== undefined) query = query.where('username', '=', filter.username);
    if (filter.statementId !== undefined) query = query.where('statement_id', '=', filter.statementId);
    const rows = await query.orderBy('attested_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
    return rows.map(toAttestation);
  }

  async newestVersions(limit: number): Promise<StatementVersion[]> {
    const statements = await this.db
      .selectFrom('attestations')
      .select('statement_id')
      .distinct()
      .orderBy('statement_id')
      .limit(limit)
      .execute();
    const newest: StatementVersion[] = [];
    for (const { statement_id: statementId } of statements) {
      // The newest version published: the one whose first attestation is the latest (a version is
      // published when it is first attested; attesting an older one late does not make it newer).
      const { version } = await this.db
        .selectFrom('attestations')
        .select('version')
        .where('statement_id', '=', statementId)
        .groupBy('version')
        .orderBy((eb) => eb.fn.min('attested_at'), 'desc')
        .orderBy('version', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      const attested = await this.db
        .selectFrom('attestations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('statement_id', '=', statementId)
        .where('version', '=', version)
        .executeTakeFirstOrThrow();
      newest.push({ statementId, version, attested: Number(attested.n) });
    }
    return newest;
  }

  async attestedBy(statementId: string, version: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('attestations')
      .select('username')
      .where('statement_id', '=', statementId)
      .where('version', '=', version)
      .execute();
    return rows.map((r) => r.username);
  }

  async purposesOf(types: readonly { tenant: string; typeId: string }[]): Promise<TypePurpose[]> {
    if (types.length === 0) return [];
    const wanted = new Set(types.map((t) => `${t.tenant}/${t.typeId}`));
    const rows = await this.db
      .selectFrom('type_purposes')
      .selectAll()
      .where('tenant', 'in', [...new Set(types.map((t) => t.tenant))])
      .where('type_id', 'in', [...new Set(types.map((t) => t.typeId))])
      .execute();
    return rows
      .filter((r) => wanted.has(`${r.tenant}/${r.type_id}`))
      .map((r) => ({
        tenant: r.tenant,
        typeId: r.type_id,
        purposeId: r.purpose_id,
        boundAt: Number(r.bound_at),
        boundBy: r.bound_by,
      }));
  }

  async bindPurpose(tenant: string, typeId: string, purposeId: string, now: number, by: string): Promise<void> {
    await this.db
      .insertInto('type_purposes')
      .values({ tenant, type_id: typeId, purpose_id: purposeId, bound_at: now, bound_by: by })
      .onConflict((oc) => oc.columns(['tenant', 'type_id']).doUpdateSet({ purpose_id: purposeId, bound_at: now, bound_by: by }))
      .execute();
  }
}
