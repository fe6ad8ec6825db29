import type { DirectoryViews } from '../../../ports/directory-views.ts';
import type { Db } from '../connect.ts';
import { inTenant } from '../windowed.ts';

/** The directory module's published views of `directory_listings` (ports/directory-views.ts). */
export class SqlDirectoryViews implements DirectoryViews {
  constructor(private readonly db: Db) {}

  async listed(accountId: string, tenant: string | null): Promise<boolean> {
    const row = await this.db
      .selectFrom('directory_listings')
      .select('community')
      .where('account_id', '=', accountId)
      .where(inTenant(tenant, 'community'))
      .executeTakeFirst();
    return row !== undefined;
  }
}
