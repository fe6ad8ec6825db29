import type { AccountViews } from '../../../ports/account-views.ts';
import type { Db } from '../connect.ts';

/** The account module's published views (ports/account-views.ts). */
export class SqlAccountViews implements AccountViews {
  constructor(private readonly db: Db) {}

  async receiptDisks(ids: readonly string[]): Promise<Array<{ id: string; disk: string }>> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('erasure_receipts')
      .select(['id', 'disk'])
      .where('id', 'in', [...ids])
      .execute();
  }
}
