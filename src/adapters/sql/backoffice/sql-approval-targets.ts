import type { ApprovalTargets } from '../../../ports/approval-store.ts';
import type { Db } from '../connect.ts';

/** The approval desk's read model of other features' tables (ports/approval-store.ts). */
export class SqlApprovalTargets implements ApprovalTargets {
  constructor(private readonly db: Db) {}

  /** Which of `ids` are credentials of the tenant. */
  async credentialsOf(tenant: string, ids: readonly string[]): Promise<string[]> {
    const found: string[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.db
        .selectFrom('issued_credentials')
        .select('id')
        .where('tenant', '=', tenant)
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
      found.push(...rows.map((r) => r.id));
    }
    return found;
  }

  /** The ids of the type's credentials still valid, at most `limit`. */
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
}
