import type { AccountErasureStore, DiskState, ErasureCounts, ErasureReceipt } from '../../../ports/account-erasure-store.ts';
import type { Db } from '../connect.ts';

/**
 * The receipts of account erasures (docs/account.md, "Erasure"): what stays of an erasure, with no
 * account id, name or contact. The erasure itself is each owner's (features/account/erasure-pipeline.ts).
 */
export class SqlAccountErasureStore implements AccountErasureStore {
  constructor(private readonly db: Db) {}

  async saveReceipt(r: ErasureReceipt): Promise<void> {
    await this.db
      .insertInto('erasure_receipts')
      .values({
        id: r.id,
        completed_at: r.completedAt,
        counts: JSON.stringify(r.counts),
        tenants: r.tenants,
        disk: r.disk,
        disk_checked_at: r.diskCheckedAt,
      })
      .execute();
  }

  async receipt(id: string): Promise<ErasureReceipt | undefined> {
    const row = await this.db.selectFrom('erasure_receipts').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      completedAt: Number(row.completed_at),
      counts: JSON.parse(row.counts) as ErasureCounts,
      tenants: Number(row.tenants),
      disk: row.disk as DiskState,
      diskCheckedAt: row.disk_checked_at === null ? null : Number(row.disk_checked_at),
    };
  }

  async markDisk(id: string, disk: DiskState, at: number): Promise<void> {
    await this.db.updateTable('erasure_receipts').set({ disk, disk_checked_at: at }).where('id', '=', id).execute();
  }

  async pendingDisk(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('erasure_receipts')
      .select('id')
      .where('disk', '=', 'pending')
      .orderBy('completed_at')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }
}
