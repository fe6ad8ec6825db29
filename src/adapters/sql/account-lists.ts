import type { AccountInTenant, TenantWindow } from '../../ports/view-records.ts';
import type { Db } from './connect.ts';
import { startsWith } from './text-match.ts';
import { inTenant, inWindow } from './windowed.ts';

/**
 * The two account lists a module publishes of a table that names holder accounts (members, wallet
 * items): the people search's accounts by prefix, and the accounts with a row in a window.
 */
export function accountLists(db: Db, table: 'members' | 'wallet_items', timeColumn: 'joined_at' | 'created_at') {
  return {
    /** The accounts starting with `prefix`, with their tenant, up to `cap`, in account order. */
    async accountsByPrefix(prefix: string, tenant: string | null, cap: number): Promise<AccountInTenant[]> {
      const rows = await db
        .selectFrom(table)
        .select(['account_id', 'tenant'])
        .distinct()
        .where(startsWith('account_id', prefix))
        .where(inTenant(tenant))
        .orderBy('account_id')
        .orderBy('tenant')
        .limit(cap)
        .execute();
      return rows.map((r) => ({ accountId: r.account_id, tenant: r.tenant }));
    },
    /** The accounts with a row in the window, past `after`, in account order. */
    async accounts(window: TenantWindow, after: string | undefined, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom(table)
        .select('account_id')
        .distinct()
        .where(inTenant(window.tenant))
        .where(inWindow(timeColumn, window))
        .where('account_id', '<>', '')
        .$if(after !== undefined, (qb) => qb.where('account_id', '>', after as string))
        .orderBy('account_id')
        .limit(limit)
        .execute();
      return rows.map((r) => r.account_id);
    },
  };
}
