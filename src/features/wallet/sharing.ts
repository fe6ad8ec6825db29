import type { Static } from '@sinclair/typebox';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import type { ShareLogEntry, ShareSetting } from '../../ports/channel-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import type { SharedItem as SharedItemView, Sharing } from './routes.ts';
import type { WalletService, WalletStores } from './wallet-service.ts';

export const SHARING_LOG_LIMIT = 50;
/** What an organisation reads per channel (GET /api/org-channels): at most this many items. */
export const SHARED_ITEMS_LIMIT = 50;

export interface SharingInput {
  shares?: { tenant: string; elements: string[] }[];
  revoke?: string[];
}

export type SharingAnswer = Static<typeof Sharing>;

/** What an organisation receives over an active channel: per shared item, the elements with values. */
export type SharedItem = Static<typeof SharedItemView>;

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Sharing over channels (docs/wallet.md, "Sharing"): per item and element, which tenants may
 * receive what. Nothing is shared by default; every change is written to the account's sharing
 * log; a share flows only while its channel is active, read at the moment the organisation asks.
 */
export class SharingService {
  constructor(
    private readonly wallet: WalletService,
    private readonly stores: WalletStores,
    private readonly uow: UnitOfWork,
    private readonly tenants: TenantService,
    private readonly clock: Clock,
    private readonly ids: Ids,
  ) {}

  /**
   * POST …/items/{itemId}/sharing. `shares` replaces the item's settings; a tenant with no live
   * channel gets a request from the holder. `revoke` ends the account's channels with the named
   * tenants. An empty body changes nothing and answers the settings and the log.
   */
  async share(accountId: string, itemId: string, input: SharingInput): Promise<SharingAnswer> {
    const actor: Actor = { kind: 'holder', accountId };
    // Outside the transaction: SQLite serves one connection, which the transaction holds.
    for (const share of input.shares ?? []) await this.tenants.get(share.tenant);
    return this.uow.run(async ({ audit }) => {
      const now = this.clock.now();
      // Held first: two changes of one item's sharing at once follow each other, so the second
      // reads the settings, the channels and the log the first left, and answers as it would after it.
      await this.stores.items.hold(accountId, itemId);
      const item = await this.stores.items.get(accountId, itemId);
      if (!item) throw new ServiceError('unknown_item', 'This account has no such item.');

      for (const tenant of new Set(input.revoke ?? [])) {
        if (!(await this.stores.channels.move(tenant, accountId, ['requested', 'active'], 'revoked', now))) {
          throw new ServiceError('channel_state', `There is no live channel with ${tenant} to revoke.`);
        }
        await audit.append({ actor, action: 'channel.revoked', tenant, target: accountId, detail: { by: 'holder' } }, [
          { type: 'channel.revoked', tenant, data: { accountId, by: 'holder' } },
        ]);
      }

      if (input.shares !== undefined) {
        if (item.state !== 'accepted') throw new ServiceError('item_not_accepted', 'Accept the item before sharing it.');
        const available = await this.wallet.elementsOf(item);
        if (!available) throw new ServiceError('item_not_shareable', `A ${item.kind} item has nothing the service can share.`);
        const wanted = normalise(item.id, input.shares, Object.keys(available));
        const before = await this.stores.channels.sharesOf(item.id);
        const log: ShareLogEntry[] = [];
        for (const tenant of new Set([...before.map((s) => s.tenant), ...wanted.map((s) => s.tenant)])) {
          const was = before.find((s) => s.tenant === tenant)?.elements ?? [];
          const will = wanted.find((s) => s.tenant === tenant)?.elements ?? [];
          if (!same(was, will)) log.push(logEntry(this.ids.mint('sharingEntry'), accountId, item.id, tenant, will, now));
        }
        for (const share of wanted.filter((s) => s.elements.length > 0)) {
          const channel = await this.stores.channels.get(share.tenant, accountId);
          if (channel && (channel.state === 'active' || channel.state === 'requested')) continue;
          // No live channel: the holder asks for one; the organisation accepts it on the console.
          // False when a request for another of the account's items made one meanwhile: it is live
          // now, and asked for once.
          const requested = await this.stores.channels.request({
            tenant: share.tenant,
            accountId,
            state: 'requested',
            elements: share.elements,
            requestedBy: 'holder',
            createdAt: now,
            updatedAt: now,
          });
          if (!requested) continue;
          const data = { accountId, elements: share.elements, by: 'holder' as const };
          await audit.append({ actor, action: 'channel.requested', tenant: share.tenant, target: accountId, detail: data }, [
            { type: 'channel.requested', tenant: share.tenant, data },
          ]);
        }
        await this.stores.channels.setShares(accountId, item.id, wanted, log);
        if (log.length > 0) {
          const detail = { shares: log.map((e) => ({ tenant: e.tenant, elements: e.elements })) };
          await audit.append({ actor, action: 'item.shared', tenant: item.tenant, target: item.id, detail });
        }
      }

      const shares = await this.stores.channels.sharesOf(item.id);
      const states = await Promise.all(shares.map((s) => this.stores.channels.get(s.tenant, accountId)));
      return {
        itemId: item.id,
        shares: shares.map((s, i) => ({ tenant: s.tenant, elements: s.elements, channel: states[i]?.state ?? 'none' })),
        log: (await this.stores.channels.logOf(accountId, item.id, SHARING_LOG_LIMIT)).map((e) => ({
          tenant: e.tenant,
          elements: e.elements,
          at: new Date(e.at).toISOString(),
        })),
      };
    });
  }

  /**
   * What the account shares with the tenant now: nothing unless their channel is active, and
   * only accepted items' elements the settings name, with today's values.
   */
  async sharedWith(tenant: string, accountId: string): Promise<SharedItem[]> {
    if ((await this.stores.channels.get(tenant, accountId))?.state !== 'active') return [];
    const out: SharedItem[] = [];
    for (const setting of await this.stores.channels.sharedWith(tenant, accountId, SHARED_ITEMS_LIMIT)) {
      const item = await this.stores.items.get(accountId, setting.itemId);
      if (item?.state !== 'accepted') continue;
      const values = (await this.wallet.elementsOf(item)) ?? {};
      const elements = Object.fromEntries(setting.elements.filter((e) => e in values).map((e) => [e, values[e]]));
      out.push({ itemId: item.id, kind: item.kind, title: item.title, elements });
    }
    return out;
  }
}

/** The item's settings: one entry per tenant, elements sorted and known to the item. */
function normalise(itemId: string, shares: { tenant: string; elements: string[] }[], known: string[]): ShareSetting[] {
  const seen = new Set<string>();
  return shares.map((s) => {
    if (seen.has(s.tenant)) throw new ServiceError('invalid_request', `${s.tenant} is named twice.`);
    seen.add(s.tenant);
    const unknown = s.elements.find((e) => !known.includes(e));
    if (unknown !== undefined) {
      throw new ServiceError('unknown_element', `This item has no element "${unknown}"; it has: ${known.join(', ')}.`);
    }
    return { itemId, tenant: s.tenant, elements: [...new Set(s.elements)].sort() };
  });
}

const logEntry = (
  id: string,
  accountId: string,
  itemId: string,
  tenant: string,
  elements: string[],
  at: number,
): ShareLogEntry => ({
  id,
  accountId,
  itemId,
  tenant,
  elements,
  at,
});
