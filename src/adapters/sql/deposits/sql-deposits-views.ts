import type { DepositRow, DepositsViews } from '../../../ports/deposits-views.ts';
import type { SourcePage } from '../../../ports/timeline-page.ts';
import type { Db } from '../connect.ts';
import { sourcePage } from '../timeline-page.ts';
import { inTenant } from '../windowed.ts';

/** The deposits module's published views of `deposits` (ports/deposits-views.ts); a body is selected by `body` alone. */
export class SqlDepositsViews implements DepositsViews {
  constructor(private readonly db: Db) {}

  async depositsOf(accountId: string, tenant: string | null, page: SourcePage): Promise<DepositRow[]> {
    const query = this.db
      .selectFrom('deposits')
      .select(['tenant', 'deposit_id', 'item_id', 'product_id', 'created_at'])
      .where('account_id', '=', accountId)
      .where(inTenant(tenant));
    const rows = await sourcePage(query, 'created_at', 'item_id', page);
    return rows.map((r) => ({
      tenant: r.tenant,
      depositId: r.deposit_id,
      itemId: r.item_id,
      productId: r.product_id,
      createdAt: Number(r.created_at),
    }));
  }

  async body(tenant: string, depositId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('deposits')
      .select('body')
      .where('tenant', '=', tenant)
      .where('deposit_id', '=', depositId)
      .executeTakeFirst();
    return row?.body;
  }
}
