import type { DepositRow, DepositState, DepositsViews } from '../../../ports/deposits-views.ts';
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

  async byDepositId(depositId: string, tenant: string | null, cap: number): Promise<DepositState[]> {
    const rows = await this.db
      .selectFrom('deposits')
      .select(['deposit_id', 'tenant', 'account_id', 'created_at', 'erased_at'])
      .where('deposit_id', '=', depositId)
      .where(inTenant(tenant))
      .orderBy('tenant')
      .limit(cap)
      .execute();
    return rows.map((d) => ({
      tenant: d.tenant,
      depositId: d.deposit_id,
      accountId: d.account_id === '' ? null : d.account_id,
      createdAt: Number(d.created_at),
      erasedAt: d.erased_at === null ? null : Number(d.erased_at),
    }));
  }

  async countsOf(accountId: string, tenant: string | null): Promise<Array<{ tenant: string; count: number }>> {
    const rows = await this.db
      .selectFrom('deposits')
      .select((eb) => ['tenant', eb.fn.countAll().as('n')])
      .where('account_id', '=', accountId)
      .where(inTenant(tenant))
      .groupBy('tenant')
      .orderBy('tenant')
      .execute();
    return rows.map((d) => ({ tenant: d.tenant, count: Number(d.n) }));
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
