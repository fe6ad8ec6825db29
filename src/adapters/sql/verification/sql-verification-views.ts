import { sql } from 'kysely';
import type { EnrolmentTransaction, TransactionRow, VerificationViews } from '../../../ports/verification-views.ts';
import type { FunnelRow, Overdue } from '../../../ports/view-records.ts';
import type { Db } from '../connect.ts';
import { inTenant } from '../windowed.ts';
import { SqlPresentationTransactionStore } from './sql-presentation-transaction-store.ts';

/** The verification module's published views (ports/verification-views.ts). */
export class SqlVerificationViews implements VerificationViews {
  constructor(private readonly db: Db) {}

  async expiredTransactions(tenant: string | null, before: number, limit: number): Promise<Overdue[]> {
    const rows = await this.db
      .selectFrom('presentation_transactions')
      .select(['id', 'type_tenant', 'expires_at'])
      .where('expires_at', '<', before)
      .where(inTenant(tenant, 'type_tenant'))
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, tenant: r.type_tenant, dueAt: Number(r.expires_at) }));
  }

  async funnel(tenant: string | null, since: number, limit: number): Promise<FunnelRow[]> {
    // The live transactions and the swept ones' daily counts, added per tenant and type.
    const rows = await sql<{
      tenant: string;
      type_id: string;
      requests: number | string;
      responses: number | string;
      accepted: number | string;
    }>`
      select tenant, type_id, sum(requests) as requests, sum(responses) as responses, sum(accepted) as accepted from (
        select tenant, type_id, requests, responses, accepted from verification_counts
        where day >= ${since} and ${inTenant(tenant)}
        union all
        select type_tenant, type_id, count(*), count(completed_at),
               sum(case when substr(outcome, 1, 10) = '{"ok":true' then 1 else 0 end)
        from presentation_transactions
        where created_at >= ${since} and ${inTenant(tenant, 'type_tenant')}
        group by type_tenant, type_id
      ) as funnel
      group by tenant, type_id
      order by sum(requests) desc, tenant, type_id
      limit ${limit}`.execute(this.db);
    return rows.rows.map((r) => ({
      tenant: r.tenant,
      typeId: r.type_id,
      steps: [Number(r.requests), Number(r.responses), Number(r.accepted)],
    }));
  }

  async transaction(id: string, tenant: string | null): Promise<TransactionRow | undefined> {
    const row = await this.db
      .selectFrom('presentation_transactions')
      .select(['id', 'type_tenant', 'type_id', 'holder_thumbprint', 'created_at', 'completed_at'])
      .where('id', '=', id)
      .where(inTenant(tenant, 'type_tenant'))
      .executeTakeFirst();
    return (
      row && {
        id: row.id,
        tenant: row.type_tenant,
        typeId: row.type_id,
        accountId: row.holder_thumbprint,
        createdAt: Number(row.created_at),
        completedAt: row.completed_at === null ? null : Number(row.completed_at),
      }
    );
  }

  // The verifier's own read of a transaction (one prepared statement), narrowed to what enrolling reads.
  async enrolment(id: string): Promise<EnrolmentTransaction | undefined> {
    const tx = await new SqlPresentationTransactionStore(this.db).get(id);
    return (
      tx && {
        id: tx.id,
        typeTenant: tx.typeTenant,
        typeId: tx.typeId,
        holder: tx.holder,
        accepted: tx.outcome?.ok === true,
        resultTokenHash: tx.resultTokenHash,
        responseCodeHash: tx.responseCodeHash,
        expiresAt: tx.expiresAt,
        completedAt: tx.completedAt,
        enrolledAt: tx.enrolledAt,
      }
    );
  }
}
