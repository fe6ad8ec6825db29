import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { PageWindow } from '../../../core/page.ts';
import type { CountWindow, DayCount } from '../../../ports/day-counts.ts';
import type {
  CredentialFilter,
  CredentialRow,
  CredentialsOf,
  IssuanceViews,
  IssuedScope,
  IssuePeriod,
  StatusListRow,
  StatusRef,
  TouchedTenant,
} from '../../../ports/issuance-views.ts';
import type { SourcePage } from '../../../ports/timeline-page.ts';
import type { TenantCount, TypeCount, TypeRef } from '../../../ports/view-records.ts';
import type { Db } from '../connect.ts';
import { expiringByType } from '../expiring.ts';
import { type Conv, col, rowCodec } from '../row-codec.ts';
import type { IssuedCredentialsTable } from '../schema.ts';
import { startsWith } from '../text-match.ts';
import { sourcePage } from '../timeline-page.ts';
import { dayOf, inPairs, inTenant, inWindow, newestFirst, pastCursor } from '../windowed.ts';
import { SqlIssuedCredentialStore } from './sql-issued-credential-store.ts';

/** Ids per `in` list: well under every engine's bound on parameters. */
const IDS_PER_QUERY = 500;

/** The holder's thumbprint is blanked (empty) when it erases its account: read as no account. */
const account: Conv<string | null, string> = { write: (v) => v ?? '', read: (v) => (v === '' ? null : (v as string)) };
const credentials = rowCodec<CredentialRow, IssuedCredentialsTable>()(
  'id tenant typeId offerId listSeq idx issuedAt revokedAt expiresAt',
  { accountId: col('holder_thumbprint', account) },
);
const COLUMNS = [
  'id',
  'tenant',
  'type_id',
  'offer_id',
  'list_seq',
  'idx',
  'holder_thumbprint',
  'issued_at',
  'revoked_at',
  'expires_at',
] as const;

/**
 * The issuance module's published views of `issued_credentials` (ports/issuance-views.ts): the
 * back office's credential reads, the approval desk's checks and the analytics' day counts.
 */
export class SqlIssuanceViews implements IssuanceViews {
  constructor(private readonly db: Db) {}

  async credential(id: string, tenant: string | null): Promise<CredentialRow | undefined> {
    const row = await this.db
      .selectFrom('issued_credentials')
      .select(COLUMNS)
      .where('id', '=', id)
      .where(inTenant(tenant))
      .executeTakeFirst();
    return row && credentials.record(row);
  }

  async credentials(f: CredentialFilter): Promise<CredentialRow[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select(COLUMNS)
      .where(inTenant(f.tenant))
      .$if(f.typeId !== undefined, (qb) => qb.where('type_id', '=', f.typeId as string))
      .$if(f.status === 'valid', (qb) => qb.where('revoked_at', 'is', null))
      .$if(f.status === 'revoked', (qb) => qb.where('revoked_at', 'is not', null))
      .$call((q) => newestFirst(q, ['issued_at', 'id'], f))
      .execute();
    return rows.map(credentials.record);
  }

  async credentialsOf(
    of: CredentialsOf,
    tenant: string | null,
    by: 'issued' | 'revoked',
    page: SourcePage,
  ): Promise<CredentialRow[]> {
    const query = this.db
      .selectFrom('issued_credentials')
      .select(COLUMNS)
      .where(inTenant(tenant))
      .$if('holder' in of, (qb) => qb.where('holder_thumbprint', '=', (of as { holder: string }).holder))
      .$if('id' in of, (qb) => qb.where('id', '=', (of as { id: string }).id))
      .$if('offerId' in of, (qb) => qb.where('offer_id', '=', (of as { offerId: string }).offerId))
      .$if(by === 'revoked', (qb) => qb.where('revoked_at', 'is not', null));
    const rows = await sourcePage(query, by === 'issued' ? 'issued_at' : 'revoked_at', 'id', page);
    return rows.map(credentials.record);
  }

  async knownCredentials(tenant: string, ids: readonly string[]): Promise<string[]> {
    const found: string[] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      const rows = await this.db
        .selectFrom('issued_credentials')
        .select('id')
        .where('tenant', '=', tenant)
        .where('id', 'in', ids.slice(i, i + IDS_PER_QUERY))
        .execute();
      found.push(...rows.map((r) => r.id));
    }
    return found;
  }

  async validOfType(tenant: string, typeId: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select('id')
      .where('tenant', '=', tenant)
      .where('type_id', '=', typeId)
      .where('revoked_at', 'is', null)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  async issuedPerDay(w: CountWindow): Promise<DayCount[]> {
    const day = dayOf('issued_at');
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select((eb) => ['tenant', 'type_id', day.as('day'), eb.fn.countAll().as('n')])
      .where('issued_at', '>=', w.since)
      .where('issued_at', '<', w.until)
      .where(inTenant(w.tenant))
      .$if(w.typeId !== null, (qb) => qb.where('type_id', '=', w.typeId as string))
      .groupBy(['tenant', 'type_id', day])
      .execute();
    return rows.map((r) => ({ day: Number(r.day), tenant: r.tenant, typeId: r.type_id, n: Number(r.n) }));
  }

  issuedIn(periods: readonly IssuePeriod[]): Promise<number[]> {
    return this.countIn(periods, sql`true`);
  }

  outstandingIn(periods: readonly IssuePeriod[], now: number): Promise<number[]> {
    return this.countIn(periods, sql`revoked_at is null and (expires_at is null or expires_at > ${now})`);
  }

  /** One count per period, in one statement: a branch each, every branch a range of its tenant's issuance. */
  private async countIn(periods: readonly IssuePeriod[], also: RawBuilder<unknown>): Promise<number[]> {
    if (periods.length === 0) return [];
    const branches = periods.map(
      (p, i) => sql`select ${sql.lit(i)} as i, count(*) as n from issued_credentials
        where tenant = ${p.tenant} and issued_at >= ${p.from} ${p.to === null ? sql`` : sql`and issued_at < ${p.to}`} and ${also}`,
    );
    const { rows } = await sql<{ i: number | string; n: number | string }>`${sql.join(branches, sql` union all `)}`.execute(
      this.db,
    );
    const counts = periods.map(() => 0);
    for (const r of rows) counts[Number(r.i)] = Number(r.n);
    return counts;
  }

  async statusLists(tenant: string | null, page: PageWindow<readonly [string, number]>): Promise<StatusListRow[]> {
    const rows = await this.db
      .selectFrom('status_lists as l')
      .select((eb) => [
        'l.tenant',
        'l.seq',
        'l.size',
        'l.capacity',
        'l.allocated',
        'l.revision',
        'l.created_at',
        eb
          .selectFrom('issued_credentials as c')
          .select((c) => c.fn.countAll<number | string>().as('n'))
          .whereRef('c.tenant', '=', 'l.tenant')
          .whereRef('c.list_seq', '=', 'l.seq')
          .where('c.revoked_at', 'is not', null)
          .as('revoked'),
      ])
      .where(inTenant(tenant, 'l.tenant'))
      .where(inWindow('l.created_at', page))
      .where(pastCursor(['l.tenant', 'l.seq'], page.after, 'asc'))
      .orderBy('l.tenant')
      .orderBy('l.seq')
      .limit(page.limit)
      .execute();
    return rows.map((r) => ({
      tenant: r.tenant,
      seq: Number(r.seq),
      size: Number(r.size),
      capacity: Number(r.capacity),
      allocated: Number(r.allocated),
      revoked: Number(r.revoked ?? 0),
      revision: Number(r.revision),
      createdAt: Number(r.created_at),
    }));
  }

  expiring(tenant: string | null, from: number, to: number, limit: number): Promise<TypeCount[]> {
    return expiringByType(this.db, 'issued_credentials', 'revoked_at', { tenant, from, to, limit });
  }

  async touched(scope: IssuedScope): Promise<TouchedTenant[]> {
    const conditions: Expression<SqlBool>[] = [inWindow('c.issued_at', { since: scope.since, until: scope.until })];
    if (scope.tenants && scope.tenants.length > 0) conditions.push(sql<SqlBool>`c.tenant in (${sql.join(scope.tenants)})`);
    const either = (parts: RawBuilder<unknown>[]) =>
      sql<SqlBool>`(${parts.length === 0 ? sql`1 = 0` : sql.join(parts, sql` or `)})`;
    if (scope.types && scope.types.length > 0)
      conditions.push(either(scope.types.map((t) => sql`(c.tenant = ${t.tenant} and c.type_id = ${t.typeId})`)));
    if (scope.signedIn !== undefined) {
      conditions.push(
        either(
          scope.signedIn.map(
            (p) =>
              sql`(c.tenant = ${p.tenant} and c.issued_at >= ${p.from}${p.to === null ? sql`` : sql` and c.issued_at < ${p.to}`})`,
          ),
        ),
      );
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

  async byStatus(ref: StatusRef, tenant: string | null, cap: number): Promise<CredentialRow[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select(COLUMNS)
      .where('idx', '=', ref.idx)
      .$if(ref.listSeq !== undefined, (qb) => qb.where('list_seq', '=', ref.listSeq as number))
      .where(inTenant(tenant))
      .orderBy('tenant')
      .orderBy('list_seq')
      .limit(cap)
      .execute();
    return rows.map(credentials.record);
  }

  async byIdPrefix(prefix: string, tenant: string | null, cap: number): Promise<CredentialRow[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select(COLUMNS)
      .where(startsWith('id', prefix))
      .where(inTenant(tenant))
      .orderBy('id')
      .limit(cap)
      .execute();
    return rows.map(credentials.record);
  }

  async countsByType(types: readonly TypeRef[]): Promise<Array<TypeRef & { issued: number; revoked: number }>> {
    if (types.length === 0) return [];
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select((eb) => ['tenant', 'type_id', eb.fn.countAll().as('issued'), eb.fn.count('revoked_at').as('revoked')])
      .where(
        inPairs(
          ['tenant', 'type_id'],
          types.map((t) => [t.tenant, t.typeId] as const),
        ),
      )
      .groupBy(['tenant', 'type_id'])
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, typeId: r.type_id, issued: Number(r.issued), revoked: Number(r.revoked) }));
  }

  async countsOfHolder(
    accountId: string,
    tenant: string | null,
  ): Promise<Array<{ tenant: string; issued: number; revoked: number }>> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select((eb) => ['tenant', eb.fn.countAll().as('issued'), eb.fn.count('revoked_at').as('revoked')])
      .where('holder_thumbprint', '=', accountId)
      .where(inTenant(tenant))
      .groupBy('tenant')
      .orderBy('tenant')
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, issued: Number(r.issued), revoked: Number(r.revoked) }));
  }

  // The status module's reads of a list: the ledger's own statements (the status fetch's hot path).
  statusList(tenant: string, seq: number): Promise<{ size: number; revision: number } | undefined> {
    return new SqlIssuedCredentialStore(this.db).list(tenant, seq);
  }

  revokedIndices(tenant: string, seq: number): Promise<number[]> {
    return new SqlIssuedCredentialStore(this.db).revokedIndices(tenant, seq);
  }

  async issuedPerTenant(tenants: readonly string[]): Promise<TenantCount[]> {
    if (tenants.length === 0) return [];
    const rows = await this.db
      .selectFrom('issued_credentials')
      .select(['tenant', (eb) => eb.fn.countAll().as('n')])
      .where('tenant', 'in', [...tenants])
      .groupBy('tenant')
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, count: Number(r.n) }));
  }
}
