import type {
  LifecycleChange,
  OffboardingFilter,
  OffboardingRow,
  OrgAdmin,
  OrgCounts,
  OrgDomain,
  OrgStore,
} from '../../../ports/org-store.ts';
import type { Db } from '../connect.ts';
import { rowCodec } from '../row-codec.ts';
import type { OrgDomainsTable, OrgLifecycleTable } from '../schema.ts';
import { holdTenant } from '../tenants/tenants-statements.ts';
import { inTenant, inWindow } from '../windowed.ts';

const lifecycle = rowCodec<LifecycleChange, OrgLifecycleTable>()('tenant seq status actor reason approvalId at', {});
const toChange = lifecycle.record;

const domains = rowCodec<OrgDomain, OrgDomainsTable>()(
  'tenant domain state token requestedAt verifiedAt activatedAt revokedAt updatedAt',
  {},
);
const toDomain = domains.record;

/** Where a page of one offboarding source starts: after the cursor in (since, kind, id) descending. */
type Keyset = { op: 'le' | 'lt'; since: number } | { op: 'tie'; since: number; id: string };

/** The time a domain state is entered, by state. */
const STATE_TIME = { verified: 'verified_at', active: 'activated_at', revoked: 'revoked_at' } as const;

export class SqlOrgStore implements OrgStore {
  constructor(private readonly db: Db) {}

  async counts(slugs: readonly string[]): Promise<Map<string, OrgCounts>> {
    const out = new Map<string, OrgCounts>(slugs.map((s) => [s, { types: 0, credentials: 0, members: 0 }]));
    if (slugs.length === 0) return out;
    const [types, credentials, members] = await Promise.all([
      this.db
        .selectFrom('credential_types')
        .select(['tenant', (eb) => eb.fn.countAll().as('n')])
        .where('tenant', 'in', slugs)
        .groupBy('tenant')
        .execute(),
      this.db
        .selectFrom('issued_credentials')
        .select(['tenant', (eb) => eb.fn.countAll().as('n')])
        .where('tenant', 'in', slugs)
        .groupBy('tenant')
        .execute(),
      this.db
        .selectFrom('members')
        .select(['tenant', (eb) => eb.fn.countAll().as('n')])
        .where('tenant', 'in', slugs)
        .where('status', '<>', 'erased')
        .groupBy('tenant')
        .execute(),
    ]);
    for (const r of types) (out.get(r.tenant) as OrgCounts).types = Number(r.n);
    for (const r of credentials) (out.get(r.tenant) as OrgCounts).credentials = Number(r.n);
    for (const r of members) (out.get(r.tenant) as OrgCounts).members = Number(r.n);
    return out;
  }

  async admins(slugs: readonly string[]): Promise<Map<string, OrgAdmin[]>> {
    const out = new Map<string, OrgAdmin[]>(slugs.map((s) => [s, []]));
    if (slugs.length === 0) return out;
    const rows = await this.db
      .selectFrom('operators')
      .select(['username', 'roles', 'status', 'tenant'])
      .where('tenant', 'in', slugs)
      .where('status', '<>', 'removed')
      // A first cut in SQL; the roles are read properly below.
      .where('roles', 'like', '%"tenant-admin"%')
      .orderBy('username')
      .execute();
    for (const r of rows) {
      if (r.tenant === null || !(JSON.parse(r.roles) as string[]).includes('tenant-admin')) continue;
      out.get(r.tenant)?.push({ username: r.username, status: r.status });
    }
    return out;
  }

  async domains(slugs: readonly string[]): Promise<Map<string, OrgDomain>> {
    if (slugs.length === 0) return new Map();
    const rows = await this.db.selectFrom('org_domains').selectAll().where('tenant', 'in', slugs).execute();
    return new Map(rows.map((r) => [r.tenant, toDomain(r)]));
  }

  async history(slug: string, limit: number): Promise<LifecycleChange[]> {
    const rows = await this.db
      .selectFrom('org_lifecycle')
      .selectAll()
      .where('tenant', '=', slug)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toChange);
  }

  async appendHistory(change: Omit<LifecycleChange, 'seq'>): Promise<LifecycleChange> {
    // Called in the transaction that moved the tenant's status, whose row it holds: one change of
    // a tenant at a time, so max + 1 is free.
    const last = await this.db
      .selectFrom('org_lifecycle')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .where('tenant', '=', change.tenant)
      .executeTakeFirst();
    const seq = Number(last?.seq ?? 0) + 1;
    await this.db
      .insertInto('org_lifecycle')
      .values(lifecycle.row({ ...change, seq }))
      .execute();
    return { ...change, seq };
  }

  async domain(slug: string): Promise<OrgDomain | undefined> {
    const row = await this.db.selectFrom('org_domains').selectAll().where('tenant', '=', slug).executeTakeFirst();
    return row && toDomain(row);
  }

  async domainHolder(domain: string, except: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('org_domains')
      .select('tenant')
      .where('domain', '=', domain)
      .where('state', '<>', 'revoked')
      .where('tenant', '<>', except)
      .executeTakeFirst();
    return row?.tenant;
  }

  async putPending(d: OrgDomain, from: readonly (OrgDomain['state'] | null)[]): Promise<boolean> {
    // The tenant's row is held first, so that two requests of one tenant follow each other: the
    // second reads and replaces the first's pending domain instead of finding no row, inserting
    // beside it and meeting it on the tenant key (answered as domain_taken, wrongly).
    await holdTenant(this.db, d.tenant);
    const current = await this.domain(d.tenant);
    if (!from.includes(current?.state ?? null)) return false;
    if (current) await this.db.deleteFrom('org_domains').where('tenant', '=', d.tenant).execute();
    const result = await this.db
      .insertInto('org_domains')
      .values(domains.row({ ...d, verifiedAt: null, activatedAt: null, revokedAt: null }))
      // The live-domain index: another tenant took the name meanwhile.
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async moveDomain(
    slug: string,
    from: readonly OrgDomain['state'][],
    to: OrgDomain['state'],
    now: number,
    token?: string,
  ): Promise<boolean> {
    const time = to === 'pending' ? undefined : STATE_TIME[to];
    let query = this.db
      .updateTable('org_domains')
      .set({ state: to, updated_at: now, ...(time ? { [time]: now } : {}) })
      .where('tenant', '=', slug)
      .where('state', 'in', [...from]);
    if (token !== undefined) query = query.where('token', '=', token);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async offboarding(f: OffboardingFilter): Promise<OffboardingRow[]> {
    const [tenants, operators] = await Promise.all([
      f.kind === 'operator' ? [] : this.suspendedTenants(f),
      f.kind === 'tenant' ? [] : this.offboardedOperators(f),
    ]);
    // Each source is in the list's order already (its SQL's); merged by (since, kind), which tells
    // the sources apart, so rows of one source keep their order.
    const merged: OffboardingRow[] = [];
    let t = 0;
    let o = 0;
    while (merged.length < f.limit && (t < tenants.length || o < operators.length)) {
      const a = tenants[t];
      const b = operators[o];
      // At the same time, 'tenant' > 'operator': descending puts tenants first.
      if (a && (!b || a.since >= b.since)) {
        merged.push(a);
        t++;
      } else if (b) {
        merged.push(b);
        o++;
      }
    }
    return merged;
  }

  /** The keyset condition of one source, whose kind is fixed: (since, kind, id) < the cursor's. */
  private static afterCondition(kind: OffboardingRow['kind'], after: OffboardingFilter['after']): Keyset | undefined {
    if (!after) return undefined;
    const [since, afterKind, id] = after;
    if (kind < afterKind) return { op: 'le', since };
    if (kind > afterKind) return { op: 'lt', since };
    return { op: 'tie', since, id };
  }

  private async suspendedTenants(f: OffboardingFilter): Promise<OffboardingRow[]> {
    let query = this.db
      .selectFrom('tenants')
      .select(['slug', 'status_since', 'status_reason'])
      .where('status', '=', 'suspended')
      .where('status_since', 'is not', null);
    query = query.where(inTenant(f.tenant, 'slug'));
    query = query.where(inWindow('status_since', f));
    const cond = SqlOrgStore.afterCondition('tenant', f.after);
    if (cond?.op === 'le') query = query.where('status_since', '<=', cond.since);
    else if (cond?.op === 'lt') query = query.where('status_since', '<', cond.since);
    else if (cond?.op === 'tie') {
      const { since, id } = cond;
      query = query.where((eb) => eb(eb.refTuple('status_since', 'slug'), '<', eb.tuple(since, id)));
    }
    const rows = await query.orderBy('status_since', 'desc').orderBy('slug', 'desc').limit(f.limit).execute();
    return rows.map((r) => ({
      kind: 'tenant',
      id: r.slug,
      status: 'suspended',
      tenant: r.slug,
      since: Number(r.status_since),
      reason: r.status_reason,
    }));
  }

  private async offboardedOperators(f: OffboardingFilter): Promise<OffboardingRow[]> {
    let query = this.db
      .selectFrom('operators')
      .select(['username', 'status', 'tenant', 'updated_at'])
      .where('status', 'in', ['suspended', 'removed']);
    query = query.where(inTenant(f.tenant));
    query = query.where(inWindow('updated_at', f));
    const cond = SqlOrgStore.afterCondition('operator', f.after);
    if (cond?.op === 'le') query = query.where('updated_at', '<=', cond.since);
    else if (cond?.op === 'lt') query = query.where('updated_at', '<', cond.since);
    else if (cond?.op === 'tie') {
      const { since, id } = cond;
      query = query.where((eb) => eb(eb.refTuple('updated_at', 'username'), '<', eb.tuple(since, id)));
    }
    const rows = await query.orderBy('updated_at', 'desc').orderBy('username', 'desc').limit(f.limit).execute();
    return rows.map((r) => ({
      kind: 'operator',
      id: r.username,
      status: r.status as 'suspended' | 'removed',
      tenant: r.tenant,
      since: Number(r.updated_at),
      reason: null,
    }));
  }
}
