import { sql } from 'kysely';
import type { CatalogueViews, HolderDetail, HolderSummary, TypeUsage } from '../../../ports/backoffice-views.ts';
import type { Db } from '../connect.ts';
import { inTenant, inWindow } from '../windowed.ts';
import { num } from './sql-backoffice-rows.ts';

/**
 * Types and holders with their use, the back office's catalogue lists (docs/backoffice/views.md,
 * "GET /api/admin/credentials/types", "GET /api/admin/credentials/holders"). Read-only.
 */
export class SqlCatalogueViews implements CatalogueViews {
  constructor(private readonly db: Db) {}

  /** Types with how many offers and credentials each has (correlated counts: both tables are indexed by tenant and type). */
  private usage() {
    return this.db
      .selectFrom('credential_types as ct')
      .select(['ct.tenant', 'ct.type_id', 'ct.name', 'ct.claims', 'ct.created_at'])
      .select((eb) => [
        eb
          .selectFrom('offers')
          .select(eb.fn.countAll().as('n'))
          .whereRef('offers.tenant', '=', 'ct.tenant')
          .whereRef('offers.type_id', '=', 'ct.type_id')
          .as('offers'),
        eb
          .selectFrom('issued_credentials')
          .select(eb.fn.countAll().as('n'))
          .whereRef('issued_credentials.tenant', '=', 'ct.tenant')
          .whereRef('issued_credentials.type_id', '=', 'ct.type_id')
          .as('issued'),
        eb
          .selectFrom('issued_credentials')
          .select(eb.fn.countAll().as('n'))
          .whereRef('issued_credentials.tenant', '=', 'ct.tenant')
          .whereRef('issued_credentials.type_id', '=', 'ct.type_id')
          .where('issued_credentials.revoked_at', 'is not', null)
          .as('revoked'),
      ]);
  }

  private static toUsage(r: {
    tenant: string;
    type_id: string;
    name: string;
    claims: string;
    created_at: number;
    offers: unknown;
    issued: unknown;
    revoked: unknown;
  }): TypeUsage {
    return {
      tenant: r.tenant,
      typeId: r.type_id,
      name: r.name,
      claims: JSON.parse(r.claims) as string[],
      createdAt: num(r.created_at),
      offers: num(r.offers ?? 0),
      issued: num(r.issued ?? 0),
      revoked: num(r.revoked ?? 0),
    };
  }

  async typeUsage(
    tenant: string | null,
    window: { since?: number; until?: number },
    afterKey: [string, string] | undefined,
    limit: number,
  ): Promise<TypeUsage[]> {
    const rows = await this.usage()
      .where(inTenant(tenant, 'ct.tenant'))
      .where(inWindow('ct.created_at', window))
      .$if(afterKey !== undefined, (qb) => {
        const [t, id] = afterKey as [string, string];
        return qb.where((eb) => eb.or([eb('ct.tenant', '>', t), eb.and([eb('ct.tenant', '=', t), eb('ct.type_id', '>', id)])]));
      })
      .orderBy('ct.tenant')
      .orderBy('ct.type_id')
      .limit(limit)
      .execute();
    return rows.map(SqlCatalogueViews.toUsage);
  }

  async oneTypeUsage(tenant: string, typeId: string): Promise<TypeUsage | undefined> {
    const row = await this.usage().where('ct.tenant', '=', tenant).where('ct.type_id', '=', typeId).executeTakeFirst();
    return row && SqlCatalogueViews.toUsage(row);
  }

  async typesByTypeId(
    tenant: string | null,
    window: { since?: number; until?: number },
    afterId: string | undefined,
    limit: number,
  ) {
    const ids = await this.db
      .selectFrom('credential_types')
      .select('type_id')
      .distinct()
      .where(inTenant(tenant))
      .where(inWindow('created_at', window))
      .$if(afterId !== undefined, (qb) => qb.where('type_id', '>', afterId as string))
      .orderBy('type_id')
      .limit(limit)
      .execute();
    if (ids.length === 0) return [];
    const typeIds = ids.map((r) => r.type_id);
    const rows = await this.usage()
      .where('ct.type_id', 'in', typeIds)
      .where(inTenant(tenant, 'ct.tenant'))
      .where(inWindow('ct.created_at', window))
      .orderBy('ct.tenant')
      .execute();
    const uses = rows.map(SqlCatalogueViews.toUsage);
    return typeIds.map((typeId) => ({ typeId, uses: uses.filter((u) => u.typeId === typeId) }));
  }

  async holders(
    tenant: string | null,
    window: { since?: number; until?: number },
    afterId: string | undefined,
    limit: number,
  ): Promise<HolderSummary[]> {
    const members = this.db
      .selectFrom('members')
      .select('account_id')
      .where(inTenant(tenant))
      .where(inWindow('joined_at', window));
    const items = this.db
      .selectFrom('wallet_items')
      .select('account_id')
      .where(inTenant(tenant))
      .where(inWindow('created_at', window));
    const page = await this.db
      .selectFrom(members.union(items).as('known'))
      .select('known.account_id')
      .where('known.account_id', '<>', '')
      .$if(afterId !== undefined, (qb) => qb.where('known.account_id', '>', afterId as string))
      .orderBy('known.account_id')
      .limit(limit)
      .execute();
    if (page.length === 0) return [];
    const ids = page.map((r) => r.account_id);
    const [memberships, itemCounts] = await Promise.all([
      this.db
        .selectFrom('members')
        .select(['account_id', 'tenant'])
        .where('account_id', 'in', ids)
        .where(inTenant(tenant))
        .execute(),
      this.db
        .selectFrom('wallet_items')
        .select(['account_id', 'tenant'])
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', 'in', ids)
        .groupBy(['account_id', 'tenant'])
        .where(inTenant(tenant))
        .execute(),
    ]);
    return ids.map((accountId) => {
      const own = memberships.filter((m) => m.account_id === accountId);
      const its = itemCounts.filter((i) => i.account_id === accountId);
      const tenants = [...new Set([...own.map((m) => m.tenant), ...its.map((i) => i.tenant)])].sort();
      return { accountId, tenants, memberships: own.length, items: its.reduce((n, i) => n + num(i.n), 0) };
    });
  }

  async holder(accountId: string, tenant: string | null, now: number): Promise<HolderDetail | undefined> {
    // A pending item past its expiry reads `expired` (docs/wallet.md), as the holder sees it;
    // grouped by its output name, since the expression's parameter would not match itself.
    const state = sql<string>`case when ${sql.ref('state')} = 'pending' and ${sql.ref('expires_at')} is not null and ${sql.ref('expires_at')} <= ${now} then 'expired' else ${sql.ref('state')} end`;
    const [memberships, items, channels, credentials, deposits, listing] = await Promise.all([
      this.db
        .selectFrom('members')
        .select(['tenant', 'tier', 'status', 'joined_at'])
        .where('account_id', '=', accountId)
        .where(inTenant(tenant))
        .orderBy('tenant')
        .execute(),
      this.db
        .selectFrom('wallet_items')
        .select(['tenant', 'kind', state.as('shown')])
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .groupBy(['tenant', 'kind', sql.ref('shown')])
        .where(inTenant(tenant))
        .execute(),
      this.db
        .selectFrom('channels')
        .select(['tenant', 'state', 'elements', 'requested_by', 'created_at', 'updated_at'])
        .where('account_id', '=', accountId)
        .where(inTenant(tenant))
        .orderBy('tenant')
        .execute(),
      this.db
        .selectFrom('issued_credentials')
        .select('tenant')
        .select((eb) => [eb.fn.countAll().as('issued'), eb.fn.count('revoked_at').as('revoked')])
        .where('holder_thumbprint', '=', accountId)
        .groupBy('tenant')
        .where(inTenant(tenant))
        .orderBy('tenant')
        .execute(),
      this.db
        .selectFrom('deposits')
        .select('tenant')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .groupBy('tenant')
        .where(inTenant(tenant))
        .orderBy('tenant')
        .execute(),
      this.db
        .selectFrom('directory_listings')
        .select('community')
        .where('account_id', '=', accountId)
        .where(inTenant(tenant, 'community'))
        .executeTakeFirst(),
    ]);
    if (memberships.length + items.length + channels.length + credentials.length + deposits.length === 0 && !listing) {
      return undefined;
    }
    return {
      accountId,
      memberships: memberships.map((m) => ({ tenant: m.tenant, tier: m.tier, status: m.status, joinedAt: num(m.joined_at) })),
      items: items
        .map((i) => ({ tenant: i.tenant, kind: i.kind, state: i.shown, count: num(i.n) }))
        .sort((a, b) => a.tenant.localeCompare(b.tenant) || a.kind.localeCompare(b.kind) || a.state.localeCompare(b.state)),
      channels: channels.map((c) => ({
        tenant: c.tenant,
        state: c.state,
        elements: JSON.parse(c.elements) as string[],
        requestedBy: c.requested_by,
        createdAt: num(c.created_at),
        updatedAt: num(c.updated_at),
      })),
      credentials: credentials.map((c) => ({ tenant: c.tenant, issued: num(c.issued), revoked: num(c.revoked) })),
      deposits: deposits.map((d) => ({ tenant: d.tenant, count: num(d.n) })),
      directoryListed: listing !== undefined,
    };
  }
}
