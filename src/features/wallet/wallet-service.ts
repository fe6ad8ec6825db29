import type { Static } from '@sinclair/typebox';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { EventInput } from '../../core/events.ts';
import { cursorOf, type PageParams, page, windowOf } from '../../http/list.ts';
import type { ChannelRecord, ChannelStore } from '../../ports/channel-store.ts';
import type { DepositsViews } from '../../ports/deposits-views.ts';
import type { Recorders, UnitOfWork } from '../../ports/unit-of-work.ts';
import { effectiveState, type ItemKind, type ListedItem, type WalletItemStore } from '../../ports/wallet-item-store.ts';
import { type DepositContents, DepositService } from '../deposits/deposit-service.ts';
import type { OfferService } from '../offers/offer-service.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import type { ChannelView, Decided, Envelope, ItemPage as ItemPageView } from './routes.ts';

export type ItemEnvelope = Static<typeof Envelope>;

export type ItemPage = Static<typeof ItemPageView>;

export type Decision = 'accept' | 'decline';

export type DecisionAnswer = Static<typeof Decided>;

export const channelView = (c: ChannelRecord): ChannelView => ({
  tenant: c.tenant,
  accountId: c.accountId,
  state: c.state,
  elements: c.elements,
  requestedBy: c.requestedBy,
  createdAt: new Date(c.createdAt).toISOString(),
  updatedAt: new Date(c.updatedAt).toISOString(),
});

/**
 * The wallet's stores: its items and its channels. A decision calls them inside its unit of work;
 * what it changes of an offer goes through the offers module's service, and a deposit's contents
 * are read through the deposits module's views, both joining the same transaction.
 */
export interface WalletStores {
  items: WalletItemStore;
  channels: ChannelStore;
}

/**
 * What accepting and declining mean for one kind of item, called inside the decision's unit of
 * work. `onAccept` answers the events of the acceptance, which the decision gives with its audit
 * entry. `contents` answers the accepted item's contents, the first time and every time after.
 */
interface KindRules {
  onAccept(item: ListedItem, now: number): Promise<EventInput[]>;
  onDecline(recorders: Recorders, item: ListedItem, now: number): Promise<void>;
  contents(item: ListedItem): Promise<Omit<DecisionAnswer, 'item'>>;
  /**
   * The elements of an accepted item its holder may share over a channel (docs/wallet.md,
   * sharing), by name, with their values. Absent: the kind has nothing the service could share
   * (an offer's claim values leave with the credential; the holder presents them instead).
   */
  elements?(item: ListedItem): Promise<Record<string, unknown>>;
}

/** What of a deposit its holder may share: the document, not the rail's bookkeeping. */
const DEPOSIT_ELEMENTS = ['kind', 'title', 'issuedAt', 'amount', 'dueAt', 'reference', 'lines'] as const;

export interface WalletServiceDeps extends WalletStores {
  uow: UnitOfWork;
  tenants: TenantService;
  offers: Pick<OfferService, 'addressedUri' | 'withdraw'>;
  /** The deposits module's views: the body of a deposit item's deposit. */
  deposits: Pick<DepositsViews, 'body'>;
  clock: Clock;
}

/** Wallet items (docs/wallet.md): the public list of envelopes, and the holder's decisions. */
export class WalletService {
  private readonly kinds: Record<ItemKind, KindRules>;

  constructor(private readonly deps: WalletServiceDeps) {
    this.kinds = {
      offer: {
        // The credential itself is collected over OID4VCI with the URI; accepting only hands it out.
        onAccept: async () => [],
        // A declined offer stops working at once and its subject is erased with the next sweep.
        onDecline: async (_scope, item, now) => void (await deps.offers.withdraw(item.tenant, item.ref, now)),
        contents: async (item) => ({ offerUri: deps.offers.addressedUri(item.tenant, item.ref) }),
      },
      deposit: {
        onAccept: async (item) => {
          const data = { depositId: item.ref, itemId: item.id, accountId: item.accountId };
          return [{ type: 'deposit.accepted', tenant: item.tenant, data }];
        },
        onDecline: async () => {},
        contents: async (item) => ({ deposit: await this.depositOf(item) }),
        elements: async (item) => {
          const deposit: Record<string, unknown> = { ...(await this.depositOf(item)) };
          return Object.fromEntries(DEPOSIT_ELEMENTS.filter((k) => deposit[k] !== undefined).map((k) => [k, deposit[k]]));
        },
      },
      'channel-request': {
        // Only an organisation's pending request is the holder's to accept; one it withdrew is not.
        onAccept: async (item, now) => {
          // The item stands for the request made when it was: a request withdrawn and made again
          // has a newer item, so an older one activates nothing.
          const channel = await deps.channels.get(item.tenant, item.accountId);
          const current = channel?.requestedBy === 'tenant' && channel.updatedAt === item.createdAt;
          const moved = current && (await deps.channels.move(item.tenant, item.accountId, ['requested'], 'active', now));
          if (!moved) throw new ServiceError('channel_state', 'The organisation no longer asks for this channel.');
          const data = { accountId: item.accountId, elements: channel.elements, by: 'holder' as const };
          return [{ type: 'channel.activated', tenant: item.tenant, data }];
        },
        onDecline: async (_recorders, item, now) => {
          const channel = await deps.channels.get(item.tenant, item.accountId);
          if (channel?.requestedBy === 'tenant' && channel.updatedAt === item.createdAt) {
            await deps.channels.move(item.tenant, item.accountId, ['requested'], 'declined', now);
          }
        },
        contents: async (item) => {
          const channel = await deps.channels.get(item.tenant, item.accountId);
          if (!channel) throw new Error(`wallet item ${item.id} names a channel that does not exist`);
          return { channel: channelView(channel) };
        },
      },
    };
  }

  /** The shareable elements of an accepted item, or undefined when its kind shares nothing. */
  async elementsOf(item: ListedItem): Promise<Record<string, unknown> | undefined> {
    return this.kinds[item.kind].elements?.(item);
  }

  /** The account's visible items, newest first (the list convention, http/list.ts). */
  async list(accountId: string, q: PageParams): Promise<ItemPage> {
    const after = cursorOf(q.after, ['number', 'string'] as const);
    const rows = await this.deps.items.list(accountId, { ...windowOf(q), limit: q.limit + 1, after });
    const now = this.deps.clock.now();
    const shown = page(
      rows,
      q.limit,
      (i) => [i.createdAt, i.id],
      (i) => this.envelope(i, now),
    );
    return { accountId, fixtures: rows.slice(0, q.limit).some((i) => i.demo), items: shown.rows, nextCursor: shown.nextCursor };
  }

  /**
   * Accepts or declines a visible item of the account. Deciding as already decided answers the
   * same again; the other decision on a decided item is `item_decided`; a pending item past its
   * expiry is `item_expired`. The state moves with one conditional write, so of two racing
   * decisions one wins and the other reads its outcome.
   */
  async decide(accountId: string, itemId: string, decision: Decision): Promise<DecisionAnswer> {
    const actor: Actor = { kind: 'holder', accountId };
    return this.deps.uow.run(async (recorders) => {
      const now = this.deps.clock.now();
      const item = await this.deps.items.get(accountId, itemId);
      if (!item) throw new ServiceError('unknown_item', 'This account has no such item.');
      const rules = this.kinds[item.kind];
      const to = decision === 'accept' ? 'accepted' : 'declined';
      if (await this.deps.items.decide(item.id, to, now)) {
        const decided = { ...item, state: to, updatedAt: now } as const;
        let events: EventInput[] = [];
        if (to === 'accepted') events = await rules.onAccept(decided, now);
        else await rules.onDecline(recorders, decided, now);
        const detail = { kind: item.kind, ref: item.ref };
        await recorders.audit.append({ actor, action: `item.${to}`, tenant: item.tenant, target: item.id, detail }, events);
        return this.answer(decided, now);
      }
      const current = (await this.deps.items.get(accountId, itemId)) ?? item;
      const state = effectiveState(current, now);
      if (state === 'expired') throw new ServiceError('item_expired', 'This item expired before it was decided.');
      if (state !== to) throw new ServiceError('item_decided', `This item was already ${state}.`);
      return this.answer(current, now);
    });
  }

  private async answer(item: ListedItem, now: number): Promise<DecisionAnswer> {
    const contents = item.state === 'accepted' ? await this.kinds[item.kind].contents(item) : {};
    return { item: this.envelope(item, now), ...contents };
  }

  private async depositOf(item: ListedItem): Promise<DepositContents> {
    const body = await this.deps.deposits.body(item.tenant, item.ref);
    if (body === undefined) throw new Error(`wallet item ${item.id} names a deposit that does not exist`);
    return DepositService.contents(item.tenant, item.id, body);
  }

  envelope(i: ListedItem, now: number): ItemEnvelope {
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      itemId: i.id,
      kind: i.kind,
      tenant: { slug: i.tenant, name: i.tenantName, did: this.deps.tenants.didOf(i.tenant) },
      title: i.title,
      state: effectiveState(i, now),
      demo: i.demo,
      createdAt: iso(i.createdAt),
      updatedAt: iso(i.updatedAt),
      expiresAt: i.expiresAt === null ? null : iso(i.expiresAt),
    };
  }
}
