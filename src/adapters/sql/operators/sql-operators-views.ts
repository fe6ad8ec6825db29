import type { OperatorHit, OperatorsViews } from '../../../ports/operators-views.ts';
import type { Db } from '../connect.ts';
import { startsWithCi } from '../text-match.ts';
import { inTenant } from '../windowed.ts';

/** The operators module's published views of `operators` (ports/operators-views.ts); never a secret. */
export class SqlOperatorsViews implements OperatorsViews {
  constructor(private readonly db: Db) {}

  async byPrefix(prefix: string, tenant: string | null, cap: number): Promise<OperatorHit[]> {
    const rows = await this.db
      .selectFrom('operators')
      .select(['username', 'roles', 'tenant', 'status'])
      .where(startsWithCi('username', prefix))
      .where('status', '<>', 'removed')
      .where(inTenant(tenant))
      .orderBy('username')
      .limit(cap)
      .execute();
    return rows.map((r) => ({
      username: r.username,
      roles: JSON.parse(r.roles) as string[],
      tenant: r.tenant,
      status: r.status,
    }));
  }
}
