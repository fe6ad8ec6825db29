import type { PageWindow } from '../../../core/page.ts';
import type { TrustedIssuer, TrustRegistry, TrustState } from '../../../ports/trust-registry.ts';
import type { Db } from '../connect.ts';
import { insertOnce } from '../insert-once.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { TrustedIssuersTable } from '../schema.ts';

const issuers = rowCodec<TrustedIssuer, TrustedIssuersTable>()('did label state addedBy addedAt changedBy changedAt reason', {
  document: json,
});

export class SqlTrustRegistry implements TrustRegistry {
  constructor(private readonly db: Db) {}

  async add(entry: TrustedIssuer): Promise<boolean> {
    return insertOnce(this.db, 'trusted_issuers', issuers.row(entry));
  }

  async get(did: string): Promise<TrustedIssuer | undefined> {
    const row = await this.db.selectFrom('trusted_issuers').selectAll().where('did', '=', did).executeTakeFirst();
    return row && issuers.record(row);
  }

  async list(state: TrustState | undefined, page: PageWindow<readonly [string]>): Promise<TrustedIssuer[]> {
    let q = this.db.selectFrom('trusted_issuers').selectAll();
    if (state !== undefined) q = q.where('state', '=', state);
    if (page.after !== undefined) q = q.where('did', '>', page.after[0]);
    const rows = await q.orderBy('did').limit(page.limit).execute();
    return rows.map(issuers.record);
  }

  async move(
    did: string,
    from: readonly TrustState[],
    change: { to: TrustState; by: string; at: number; reason: string | null; document?: Record<string, unknown> },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('trusted_issuers')
      .set(
        issuers.patch({
          state: change.to,
          changedBy: change.by,
          changedAt: change.at,
          reason: change.reason,
          ...(change.document ? { document: change.document } : {}),
        }),
      )
      .where('did', '=', did)
      .where('state', 'in', [...from])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
