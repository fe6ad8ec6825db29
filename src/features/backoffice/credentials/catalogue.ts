import type { Static } from '@sinclair/typebox';
import type { TypeSummary, TypeWindow } from '../../../ports/credential-types-views.ts';
import type { TypeRef } from '../../../ports/view-records.ts';
import { mergeOrdered } from './merged.ts';
import type { HolderRow } from './schemas.ts';
import type { FinderSources } from './sources.ts';

/** A credential type with how many offers and credentials it has. */
export interface TypeUsage extends TypeSummary {
  offers: number;
  issued: number;
  revoked: number;
}

export type HolderSummary = Static<typeof HolderRow>;

export interface HolderDetail {
  accountId: string;
  memberships: { tenant: string; tier: string; status: string; joinedAt: number }[];
  items: { tenant: string; kind: string; state: string; count: number }[];
  channels: { tenant: string; state: string; elements: string[]; requestedBy: string; createdAt: number; updatedAt: number }[];
  credentials: { tenant: string; issued: number; revoked: number }[];
  deposits: { tenant: string; count: number }[];
  /** Listed in the holder directory (in the tenant's community, for a tenant-narrowed read). */
  directoryListed: boolean;
}

const keyOf = (t: TypeRef) => `${t.tenant}\u0000${t.typeId}`;

/**
 * Types and holders with their use, the back office's catalogue lists (docs/backoffice/views.md,
 * "GET /api/admin/credentials/types", "GET /api/admin/credentials/holders"): a page of one owner's
 * rows, then each other owner's counts for that page in one read.
 */
export class Catalogue {
  constructor(private readonly s: FinderSources) {}

  async typeUsage(tenant: string | null, window: TypeWindow, after: [string, string] | undefined, limit: number) {
    return this.withUse(await this.s.types.types(tenant, window, after, limit));
  }

  async oneTypeUsage(tenant: string, typeId: string): Promise<TypeUsage | undefined> {
    const found = await this.s.types.type(tenant, typeId);
    return found && (await this.withUse([found]))[0];
  }

  /** Types grouped by typeId across tenants: the page's typeIds in order, with every (visible) tenant's use. */
  async typesByTypeId(tenant: string | null, window: TypeWindow, after: string | undefined, limit: number) {
    const groups = await this.s.types.byTypeId(tenant, window, after, limit);
    const uses = new Map((await this.withUse(groups.flatMap((g) => g.types))).map((u) => [keyOf(u), u]));
    return groups.map((g) => ({ typeId: g.typeId, uses: g.types.map((t) => uses.get(keyOf(t)) as TypeUsage) }));
  }

  /** Holder accounts the service knows (members and wallet items), by account id. */
  async holders(tenant: string | null, window: TypeWindow, after: string | undefined, limit: number): Promise<HolderSummary[]> {
    const s = this.s;
    const known = { tenant, ...window };
    const [members, items] = await Promise.all([s.members.accounts(known, after, limit), s.wallet.accounts(known, after, limit)]);
    const ids = await mergeOrdered(s.kernel, [members, items], (id) => [id], limit);
    if (ids.length === 0) return [];
    const [memberships, itemCounts] = await Promise.all([s.members.memberships(ids, tenant), s.wallet.itemCounts(ids, tenant)]);
    return ids.map((accountId) => {
      const own = memberships.filter((m) => m.accountId === accountId);
      const its = itemCounts.filter((i) => i.accountId === accountId);
      const tenants = [...new Set([...own.map((m) => m.tenant), ...its.map((i) => i.tenant)])].sort();
      return { accountId, tenants, memberships: own.length, items: its.reduce((n, i) => n + i.count, 0) };
    });
  }

  async holder(accountId: string, tenant: string | null, now: number): Promise<HolderDetail | undefined> {
    const s = this.s;
    const [memberships, items, channels, credentials, deposits, listed] = await Promise.all([
      s.members.memberships([accountId], tenant),
      s.wallet.itemStates(accountId, tenant, now),
      s.wallet.channelsByTenant(accountId, tenant),
      s.credentials.countsOfHolder(accountId, tenant),
      s.deposits.countsOf(accountId, tenant),
      s.directory.listed(accountId, tenant),
    ]);
    if (memberships.length + items.length + channels.length + credentials.length + deposits.length === 0 && !listed) {
      return undefined;
    }
    return {
      accountId,
      memberships: memberships.map((m) => ({ tenant: m.tenant, tier: m.tier, status: m.status, joinedAt: m.joinedAt })),
      items: items
        .map((i) => ({ tenant: i.tenant, kind: i.kind, state: i.state, count: i.count }))
        .sort((a, b) => a.tenant.localeCompare(b.tenant) || a.kind.localeCompare(b.kind) || a.state.localeCompare(b.state)),
      channels: channels.map((c) => ({
        tenant: c.tenant,
        state: c.state,
        elements: c.elements,
        requestedBy: c.requestedBy,
        createdAt: c.createdAt,
        updatedAt: c.updatedAt,
      })),
      credentials,
      deposits,
      directoryListed: listed,
    };
  }

  /** Each type with its offers, and its credentials and revocations, read for the whole page at once. */
  private async withUse(types: readonly TypeSummary[]): Promise<TypeUsage[]> {
    if (types.length === 0) return [];
    const refs = types.map((t) => ({ tenant: t.tenant, typeId: t.typeId }));
    const [offers, issued] = await Promise.all([this.s.offers.countsByType(refs), this.s.credentials.countsByType(refs)]);
    const offered = new Map(offers.map((o) => [keyOf(o), o.offers]));
    const counts = new Map(issued.map((c) => [keyOf(c), c]));
    return types.map((t) => ({
      ...t,
      offers: offered.get(keyOf(t)) ?? 0,
      issued: counts.get(keyOf(t))?.issued ?? 0,
      revoked: counts.get(keyOf(t))?.revoked ?? 0,
    }));
  }
}
