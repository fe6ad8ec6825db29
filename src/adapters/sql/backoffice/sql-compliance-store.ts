import { type Expression, type Selectable, type SqlBool, sql } from 'kysely';
import { parseClaimSpec } from '../../../core/claims/claim-spec.ts';
import type { PageWindow } from '../../../core/page.ts';
import {
  type AttestationRecord,
  type ComplianceRequestRecord,
  type ComplianceStore,
  type InventoryRow,
  type ListedRequest,
  type LookupKey,
  type Recipients,
  type ReciprocalApprovals,
  type RequestFilter,
  type RequestKind,
  ROLE_ACTIONS,
  type RoleChange,
  type SubjectPlace,
  type TypeWithPurpose,
} from '../../../ports/compliance-store.ts';
import type { Db } from '../connect.ts';
import { erasureNoteOf, HOLDER_DATA, type LookupMatch, lookupOf } from '../holder-data.ts';
import { rowCodec } from '../row-codec.ts';
import type { AttestationsTable, ComplianceRequestsTable } from '../schema.ts';
import { inTenant, inWindow, pastCursor } from '../windowed.ts';
import { json, mentions } from './sql-backoffice-rows.ts';

type Row = Selectable<ComplianceRequestsTable> & { approval_state: string | null; receipt_disk: string | null };

const requests = rowCodec<ComplianceRequestRecord, ComplianceRequestsTable>()(
  'id kind state subjectKind accountId identifier source identityCheck receivedAt dueAt filedBy filedAt decidedBy decidedAt outcome ground note approvalId receiptId statement',
  {},
);
const toRequest = (r: Row): ListedRequest => ({
  ...requests.record(r),
  approvalState: r.approval_state,
  receiptDisk: r.receipt_disk,
});

const attestations = rowCodec<AttestationRecord, AttestationsTable>()(
  'id username tenant statementId version note attestedAt auditSeq',
  {},
);
const toAttestation = attestations.record;

/** Operators named per statement as not having attested its newest version, at most. */
const ATTESTATIONS_DUE_NAMED = 200;

const LABELS: Record<LookupKey, string> = { account: 'holder', email: 'email', username: 'operator', member: 'partner' };

/** The condition of one registered column for one identifier. */
function holds(column: string, match: LookupMatch, key: LookupKey, value: string): Expression<SqlBool> {
  if (match === 'mentions') return mentions(column, value);
  if (match === 'names') {
    // A JSON string that is the identifier (or its label): as JSON.stringify wrote it.
    if (key === 'email') return namedIn(sql`lower(${sql.ref(column)})`, [JSON.stringify(value.toLowerCase())]);
    return namedIn(sql.ref(column), [JSON.stringify(value), JSON.stringify(`${LABELS[key]}:${value}`)]);
  }
  if (key === 'email') return sql<SqlBool>`lower(${sql.ref(column)}) = ${value.toLowerCase()}`;
  if (match === 'label') return sql<SqlBool>`${sql.ref(column)} in (${value}, ${`${LABELS[key]}:${value}`})`;
  return sql<SqlBool>`${sql.ref(column)} = ${value}`;
}

/** A request's own records, as a lookup made to answer it leaves them out. */
interface OwnRecords {
  request: string;
  /** The `subject.export` approvals filed for the request. */
  exports: readonly string[];
}

/** The registered tables that hold a request's own records, and the column that tells them apart. */
const OWN_RECORDS: Readonly<Record<string, { column: string; of: (own: OwnRecords) => readonly string[] }>> = {
  compliance_requests: { column: 'id', of: (own) => [own.request] },
  approvals: { column: 'id', of: (own) => own.exports },
  audit_log: { column: 'target', of: (own) => [own.request, ...own.exports] },
};

/** The rows of `table` that are not the request's own (no condition where the table holds none). */
function notOwn(table: string, own: OwnRecords | undefined): Expression<SqlBool> | undefined {
  const rule = own && OWN_RECORDS[table];
  const ids = rule ? rule.of(own) : [];
  if (!rule || ids.length === 0) return undefined;
  // coalesce: an entry with no target is never the request's own, and `not in` over null is unknown.
  return sql<SqlBool>`coalesce(${sql.ref(rule.column)}, '') not in (${sql.join(ids)})`;
}

/** The text holds one of the strings (`replace` is the same function on both engines). */
const namedIn = (text: Expression<unknown>, strings: readonly string[]) =>
  sql<SqlBool>`(${sql.join(
    strings.map((v) => sql`replace(${text}, ${v}, '') <> ${text}`),
    sql` or `,
  )})`;

/** Data-subject requests, and the lookup that reads the holder-data registry (docs/backoffice/compliance.md). */
export class SqlComplianceStore implements ComplianceStore {
  constructor(private readonly db: Db) {}

  async add(request: ComplianceRequestRecord): Promise<void> {
    await this.db.insertInto('compliance_requests').values(requests.row(request)).execute();
  }

  private listed() {
    return this.db
      .selectFrom('compliance_requests as r')
      .leftJoin('approvals as a', 'a.id', 'r.approval_id')
      .leftJoin('erasure_receipts as e', 'e.id', 'r.receipt_id')
      .selectAll('r')
      .select(['a.state as approval_state', 'e.disk as receipt_disk']);
  }

  async get(kind: RequestKind, id: string): Promise<ListedRequest | undefined> {
    const row = await this.listed().where('r.kind', '=', kind).where('r.id', '=', id).executeTakeFirst();
    return row && toRequest(row as Row);
  }

  async list(filter: RequestFilter, page: PageWindow<readonly [number, string]>): Promise<ListedRequest[]> {
    let query = this.listed()
      .where('r.kind', '=', filter.kind)
      .where(inWindow('r.received_at', page))
      .where(pastCursor(['r.received_at', 'r.id'], page.after, 'desc'));
    if (filter.state !== undefined) query = query.where('r.state', '=', filter.state);
    const rows = await query.orderBy('r.received_at', 'desc').orderBy('r.id', 'desc').limit(page.limit).execute();
    return rows.map((r) => toRequest(r as Row));
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
    const result = await this.db
      .insertInto('compliance_requests')
      .values(requests.row(request))
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
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
      const prior = expected.approvalId;
      query = query.where('approval_id', '=', prior).where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('approvals as a')
              .select('a.id')
              .where('a.id', '=', prior)
              .where((w) =>
                w.or([
                  w('a.state', '=', 'approved'),
                  w.and([w('a.state', '=', 'pending'), w('a.expires_at', '>', expected.now)]),
                ]),
              ),
          ),
        ),
      );
    }
    const result = await query.executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async byApproval(approvalId: string): Promise<ComplianceRequestRecord | undefined> {
    const row = await this.listed().where('r.approval_id', '=', approvalId).executeTakeFirst();
    return row && toRequest(row as Row);
  }

  async lookup(keys: Partial<Record<LookupKey, readonly string[]>>, answering?: string): Promise<SubjectPlace[]> {
    const own = answering === undefined ? undefined : await this.ownRecords(answering);
    const places: SubjectPlace[] = [];
    for (const c of HOLDER_DATA) {
      const lookup = lookupOf(c);
      if (!lookup) continue;
      const conditions = lookup.by.flatMap((key) => (keys[key] ?? []).map((v) => holds(c.column, lookup.match, key, v)));
      if (conditions.length === 0) continue;
      const except = notOwn(c.table, own);
      const found = await sql<{ n: number | string | bigint }>`select count(*) as n from ${sql.table(c.table)}
        where (${sql.join(conditions, sql` or `)})${except ? sql` and ${except}` : sql``}`.execute(this.db);
      const count = Number(found.rows[0]?.n ?? 0);
      if (count > 0) {
        places.push({
          table: c.table,
          column: c.column,
          category: c.category,
          count,
          erasure: c.erase.rule,
          erasureNote: erasureNoteOf(c),
        });
      }
    }
    return places;
  }

  /**
   * The request and every export filed for it: the one it names now, and those an earlier filing
   * named (each filing's `dsar.export_requested` entry carries its approval).
   */
  private async ownRecords(request: string): Promise<OwnRecords> {
    const named = await this.db
      .selectFrom('compliance_requests')
      .select('approval_id')
      .where('id', '=', request)
      .executeTakeFirst();
    const filings = await this.db
      .selectFrom('audit_log')
      .select('detail')
      .where('action', '=', 'dsar.export_requested')
      .where('target', '=', request)
      .execute();
    const exports = new Set<string>();
    if (named?.approval_id) exports.add(named.approval_id);
    for (const f of filings) {
      const approvalId = json(f.detail).approvalId;
      if (typeof approvalId === 'string') exports.add(approvalId);
    }
    return { request, exports: [...exports] };
  }

  async addAttestation(a: AttestationRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('attestations')
      .values(attestations.row(a))
      .onConflict((oc) => oc.columns(['username', 'statement_id', 'version']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
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

  async roleHistory(filter: { username?: string | undefined }, page: PageWindow<readonly [number]>): Promise<RoleChange[]> {
    let query = this.db
      .selectFrom('audit_log')
      .select(['seq', 'at', 'actor', 'action', 'target', 'tenant', 'detail'])
      .where('action', 'in', [...ROLE_ACTIONS])
      .where(inWindow('at', page));
    if (page.after !== undefined) query = query.where('seq', '<', page.after[0]);
    if (filter.username !== undefined) query = query.where('target', '=', filter.username);
    const rows = await query.orderBy('seq', 'desc').limit(page.limit).execute();
    return rows.map((r) => ({
      seq: Number(r.seq),
      at: Number(r.at),
      actor: r.actor,
      action: r.action,
      username: r.target ?? '',
      tenant: r.tenant,
      detail: json(r.detail),
    }));
  }

  async inventory(): Promise<InventoryRow[]> {
    const rows: InventoryRow[] = [];
    for (const c of HOLDER_DATA) {
      const found = await sql<{ n: number | string | bigint }>`select count(*) as n from ${sql.table(c.table)}
        where ${sql.ref(c.column)} is not null and ${sql.ref(c.column)} <> ''`.execute(this.db);
      rows.push({
        table: c.table,
        column: c.column,
        names: c.names,
        category: c.category,
        erasure: c.erase.rule,
        erasureNote: erasureNoteOf(c),
        exported: 'section' in c.export ? c.export.section : null,
        rows: Number(found.rows[0]?.n ?? 0),
      });
    }
    return rows;
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

  async attestationsDue(limit: number, roles: readonly string[]) {
    const statements = await this.db
      .selectFrom('attestations')
      .select('statement_id')
      .distinct()
      .orderBy('statement_id')
      .limit(limit)
      .execute();
    const due = [];
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
      const missing = await this.db
        .selectFrom('operators as o')
        .select('o.username')
        .where('o.status', '=', 'active')
        .where((eb) => eb.or(roles.map((role) => eb('o.roles', 'like', `%"${role}"%`))))
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('attestations as t')
                .select('t.id')
                .whereRef('t.username', '=', 'o.username')
                .where('t.statement_id', '=', statementId)
                .where('t.version', '=', version),
            ),
          ),
        )
        .orderBy('o.username')
        .limit(ATTESTATIONS_DUE_NAMED)
        .execute();
      due.push({ statementId, version, attested: Number(attested.n), missing: missing.map((m) => m.username) });
    }
    return due;
  }

  async typesWithPurposes(limit: number, tenant?: string): Promise<TypeWithPurpose[]> {
    const rows = await this.db
      .selectFrom('credential_types as t')
      .leftJoin('type_purposes as p', (join) => join.onRef('p.tenant', '=', 't.tenant').onRef('p.type_id', '=', 't.type_id'))
      .select(['t.tenant', 't.type_id', 't.name', 't.claims', 'p.purpose_id', 'p.bound_at', 'p.bound_by'])
      .where(inTenant(tenant ?? null, 't.tenant'))
      .orderBy('t.tenant')
      .orderBy('t.type_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      tenant: r.tenant,
      typeId: r.type_id,
      name: r.name,
      claims: (JSON.parse(r.claims) as string[]).map((spec) => parseClaimSpec(spec).key),
      purposeId: r.purpose_id,
      boundAt: r.bound_at === null ? null : Number(r.bound_at),
      boundBy: r.bound_by,
    }));
  }

  async bindPurpose(tenant: string, typeId: string, purposeId: string, now: number, by: string): Promise<boolean> {
    const type = await this.db
      .selectFrom('credential_types')
      .select('type_id')
      .where('tenant', '=', tenant)
      .where('type_id', '=', typeId)
      .executeTakeFirst();
    if (!type) return false;
    await this.db
      .insertInto('type_purposes')
      .values({ tenant, type_id: typeId, purpose_id: purposeId, bound_at: now, bound_by: by })
      .onConflict((oc) => oc.columns(['tenant', 'type_id']).doUpdateSet({ purpose_id: purposeId, bound_at: now, bound_by: by }))
      .execute();
    return true;
  }

  async recipients(limit: number): Promise<Recipients> {
    const hooks = await this.db
      .selectFrom('webhooks')
      .select(['tenant', 'url', 'events', 'active'])
      .orderBy('tenant')
      .orderBy('id')
      .limit(limit)
      .execute();
    const channels = await this.db
      .selectFrom('channels')
      .select((eb) => ['tenant', eb.fn.countAll<number>().as('n')])
      .where('state', '=', 'active')
      .groupBy('tenant')
      .orderBy('tenant')
      .execute();
    return {
      webhooks: hooks.map((h) => ({
        tenant: h.tenant,
        origin: new URL(h.url).origin,
        events: JSON.parse(h.events) as string[],
        active: Number(h.active) === 1,
      })),
      channels: channels.map((c) => ({ tenant: c.tenant, active: Number(c.n) })),
    };
  }

  async requestsOfMembers(tenant: string, limit: number): Promise<ListedRequest[]> {
    const rows = await this.listed()
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('members as m')
            .select('m.account_id')
            .whereRef('m.account_id', '=', 'r.account_id')
            .where('m.tenant', '=', tenant),
        ),
      )
      .orderBy('r.received_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => toRequest(r as Row));
  }

  async reciprocalApprovals(limit: number): Promise<ReciprocalApprovals[]> {
    const rows = await sql<{ first: string; second: string; one: number | string; other: number | string }>`
      with decided as (
        select requested_by as asked, decided_by as approver, count(*) as n from approvals
        where state = 'approved' and decided_by is not null and decided_by <> requested_by
        group by requested_by, decided_by
      )
      select a.asked as first, a.approver as second, a.n as one, b.n as other
      from decided a join decided b on b.asked = a.approver and b.approver = a.asked
      where a.asked < a.approver
      order by a.asked, a.approver
      limit ${limit}`.execute(this.db);
    return rows.rows.map((r) => ({
      first: r.first,
      second: r.second,
      firstApprovedSecond: Number(r.other),
      secondApprovedFirst: Number(r.one),
    }));
  }

  async membersOf(email: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('partner_team')
      .select('id')
      .where(sql<SqlBool>`lower(email) = ${email.toLowerCase()}`)
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }
}
