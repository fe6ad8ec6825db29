import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { EventInput } from '../../core/events.ts';
import type { Ids } from '../../core/ids.ts';
import { isDemoSlug } from '../../core/slug.ts';
import { cursorOf, type PageParams, page, windowOf } from '../../http/list.ts';
import type { ChannelState } from '../../ports/channel-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import type { ChannelView } from '../wallet/routes.ts';
import type { SharedItem, SharingService } from '../wallet/sharing.ts';
import { channelView, type WalletStores } from '../wallet/wallet-service.ts';

/** An organisation's request waits this long in the holder's wallet. */
export const CHANNEL_REQUEST_TTL_MS = 30 * 24 * 3600 * 1000;

export type ChannelAction = 'accept' | 'decline' | 'revoke';

/** What each console action does to a channel: the states it starts from, and who must have asked. */
const ACTIONS: Record<ChannelAction, { from: ChannelState[]; to: ChannelState; requestedBy?: 'holder' }> = {
  accept: { from: ['requested'], to: 'active', requestedBy: 'holder' },
  decline: { from: ['requested'], to: 'declined', requestedBy: 'holder' },
  revoke: { from: ['requested', 'active'], to: 'revoked' },
};

export interface ListedChannel extends ChannelView {
  /** Active channels only: what the holder shares over it now. */
  shared?: SharedItem[];
}

export interface ChannelServiceDeps {
  uow: UnitOfWork;
  /** The wallet's stores: channels and the items that ask for them. */
  stores: WalletStores;
  sharing: SharingService;
  tenants: TenantService;
  clock: Clock;
  ids: Ids;
}

/** The organisation's side of channels (docs/wallet.md, "Channels"). */
export class ChannelService {
  constructor(private readonly deps: ChannelServiceDeps) {}

  /** POST /api/org-channels/request: the organisation asks; the holder answers in its wallet. */
  async request(input: { tenant: string; accountId: string; elements: string[] }, actor: Actor) {
    const tenant = await this.deps.tenants.get(input.tenant);
    const elements = [...new Set(input.elements)].sort();
    return this.deps.uow.run(async ({ audit }) => {
      const now = this.deps.clock.now();
      const channel = {
        tenant: input.tenant,
        accountId: input.accountId,
        state: 'requested' as const,
        elements,
        requestedBy: 'tenant' as const,
        createdAt: now,
        updatedAt: now,
      };
      if (!(await this.deps.stores.channels.request(channel))) {
        throw new ServiceError('channel_state', 'The account already has a requested or active channel with this tenant.');
      }
      const itemId = this.deps.ids.mint('item');
      await this.deps.stores.items.add({
        id: itemId,
        tenant: input.tenant,
        accountId: input.accountId,
        kind: 'channel-request',
        ref: itemId,
        title: `${tenant.name} asks for: ${elements.join(', ')}`.slice(0, 200),
        state: 'pending',
        demo: isDemoSlug(input.tenant),
        createdAt: now,
        updatedAt: now,
        expiresAt: now + CHANNEL_REQUEST_TTL_MS,
      });
      const data = { accountId: input.accountId, elements, by: 'tenant' as const, itemId };
      await audit.append({ actor, action: 'channel.requested', tenant: input.tenant, target: input.accountId, detail: data }, [
        { type: 'channel.requested', tenant: input.tenant, data },
      ]);
      const stored = await this.deps.stores.channels.get(input.tenant, input.accountId);
      if (!stored) throw new Error('channel vanished inside its own transaction');
      return { channel: channelView(stored), itemId };
    });
  }

  /** accept, decline (a holder's request) or revoke (either's), as the organisation. */
  async act(tenant: string, accountId: string, action: ChannelAction, actor: Actor): Promise<ChannelView> {
    const rule = ACTIONS[action];
    return this.deps.uow.run(async ({ audit }) => {
      const channel = await this.deps.stores.channels.get(tenant, accountId);
      if (!channel) throw new ServiceError('unknown_channel', 'The tenant has no channel with this account.');
      const now = this.deps.clock.now();
      const allowed = rule.requestedBy === undefined || channel.requestedBy === rule.requestedBy;
      if (!allowed || !(await this.deps.stores.channels.move(tenant, accountId, rule.from, rule.to, now))) {
        throw new ServiceError(
          'channel_state',
          `The channel is ${channel.state}${allowed ? '' : `, asked by the ${channel.requestedBy}`}: it cannot be ${action}ed here.`,
        );
      }
      const name = { accept: 'channel.activated', decline: 'channel.declined', revoke: 'channel.revoked' }[action];
      // A declined request has an audit entry and no event.
      const event: EventInput | undefined =
        rule.to === 'active'
          ? { type: 'channel.activated', tenant, data: { accountId, elements: channel.elements, by: 'tenant' } }
          : rule.to === 'revoked'
            ? { type: 'channel.revoked', tenant, data: { accountId, by: 'tenant' } }
            : undefined;
      await audit.append({ actor, action: name, tenant, target: accountId, detail: { by: 'tenant' } }, event ? [event] : []);
      return channelView({ ...channel, state: rule.to, updatedAt: now });
    });
  }

  /** GET /api/org-channels: a tenant's channels, each active one with what is shared over it now. */
  async list(filter: { tenant?: string | undefined; state?: ChannelState | undefined }, q: PageParams) {
    const after = cursorOf(q.after, ['string', 'string'] as const);
    const rows = await this.deps.stores.channels.list(filter, { ...windowOf(q), limit: q.limit + 1, after });
    const shown = page(
      rows,
      q.limit,
      (c) => [c.tenant, c.accountId],
      (c) => c,
    );
    const channels: ListedChannel[] = [];
    for (const c of shown.rows) {
      const view: ListedChannel = channelView(c);
      if (c.state === 'active') view.shared = await this.deps.sharing.sharedWith(c.tenant, c.accountId);
      channels.push(view);
    }
    return { channels, nextCursor: shown.nextCursor };
  }
}
