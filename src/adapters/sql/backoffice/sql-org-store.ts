import type { LifecycleChange, OrgDomain, OrgStore } from '../../../ports/org-store.ts';
import type { Db } from '../connect.ts';
import { rowCodec } from '../row-codec.ts';
import type { OrgDomainsTable, OrgLifecycleTable } from '../schema.ts';
import { holdTenant } from '../tenants/tenants-statements.ts';

const lifecycle = rowCodec<LifecycleChange, OrgLifecycleTable>()('tenant seq status actor reason approvalId at', {});
const toChange = lifecycle.record;

const domains = rowCodec<OrgDomain, OrgDomainsTable>()(
  'tenant domain state token requestedAt verifiedAt activatedAt revokedAt updatedAt',
  {},
);
const toDomain = domains.record;

/** The time a domain state is entered, by state. */
const STATE_TIME = { verified: 'verified_at', active: 'activated_at', revoked: 'revoked_at' } as const;

/** The back office's records of organisations: their status history and custom domain (ports/org-store.ts). */
export class SqlOrgStore implements OrgStore {
  constructor(private readonly db: Db) {}

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
}
