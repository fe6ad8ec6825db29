import type { OperatorRecord } from '../../../ports/operator-store.ts';
import type { OffboardedOperator, OperatorSummary, OperatorsViews, TenantAdmin } from '../../../ports/operators-views.ts';
import type { TenantWindow, TimeKeyset } from '../../../ports/view-records.ts';
import type { Db } from '../connect.ts';
import { beforeKeyset } from '../keyset.ts';
import { startsWithCi } from '../text-match.ts';
import { inTenant, inWindow } from '../windowed.ts';
import { SqlOperatorSessionStore, SqlOperatorStore } from './sql-operator-store.ts';

/** The operators module's published views of `operators` (ports/operators-views.ts); never a secret. */
export class SqlOperatorsViews implements OperatorsViews {
  constructor(private readonly db: Db) {}

  async byPrefix(prefix: string, tenant: string | null, cap: number): Promise<OperatorSummary[]> {
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
      roles: JSON.parse(r.roles) as OperatorRecord['roles'],
      tenant: r.tenant,
      status: r.status as OperatorRecord['status'],
    }));
  }

  async activeHolding(roles: readonly string[]): Promise<string[]> {
    if (roles.length === 0) return [];
    const rows = await this.db
      .selectFrom('operators')
      .select('username')
      .where('status', '=', 'active')
      .where((eb) => eb.or(roles.map((role) => eb('roles', 'like', `%"${role}"%`))))
      .orderBy('username')
      .execute();
    return rows.map((r) => r.username);
  }

  async tenantAdmins(tenants: readonly string[]): Promise<TenantAdmin[]> {
    if (tenants.length === 0) return [];
    const rows = await this.db
      .selectFrom('operators')
      .select(['username', 'roles', 'status', 'tenant'])
      .where('tenant', 'in', [...tenants])
      .where('status', '<>', 'removed')
      // A first cut in SQL; the roles are read properly below.
      .where('roles', 'like', '%"tenant-admin"%')
      .orderBy('username')
      .execute();
    return rows.flatMap((r) =>
      r.tenant !== null && (JSON.parse(r.roles) as string[]).includes('tenant-admin')
        ? [{ tenant: r.tenant, username: r.username, status: r.status as TenantAdmin['status'] }]
        : [],
    );
  }

  async offboarded(f: TenantWindow & { before?: TimeKeyset; limit: number }): Promise<OffboardedOperator[]> {
    let query = this.db
      .selectFrom('operators')
      .select(['username', 'status', 'tenant', 'updated_at'])
      .where('status', 'in', ['suspended', 'removed'])
      .where(inTenant(f.tenant))
      .where(inWindow('updated_at', f));
    if (f.before) query = query.where(beforeKeyset('updated_at', 'username', f.before));
    const rows = await query.orderBy('updated_at', 'desc').orderBy('username', 'desc').limit(f.limit).execute();
    return rows.map((r) => ({
      username: r.username,
      status: r.status as OffboardedOperator['status'],
      tenant: r.tenant,
      since: Number(r.updated_at),
    }));
  }

  async sessionOperator(tokenHash: string, now: number): Promise<OperatorSummary | undefined> {
    const session = await new SqlOperatorSessionStore(this.db).find(tokenHash, now);
    const operator = session && (await new SqlOperatorStore(this.db).get(session.username));
    return operator && { username: operator.username, roles: operator.roles, tenant: operator.tenant, status: operator.status };
  }
}
