import { type Static, Type } from '@sinclair/typebox';
import { idPattern } from '../../core/ids.ts';
import { ListPage, PageQuery, pageParams } from '../../http/list.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { AccountId, Narrowed, refusal, Slug } from '../../http/schemas/common.ts';
import type { ItemKind, ItemState } from '../../ports/wallet-item-store.ts';
import { DepositView } from '../deposits/routes.ts';
import type { SharingInput, SharingService } from './sharing.ts';
import type { WalletService } from './wallet-service.ts';

const ItemId = Type.String({ pattern: idPattern('item') });
const DateTime = Type.String({ format: 'date-time' });

/** What a wallet sees of an item without signing anything: never a claim value or an amount. */
export const Envelope = Type.Object({
  itemId: Type.String(),
  kind: Narrowed<ItemKind>(Type.String({ description: 'offer, deposit or channel-request.' })),
  tenant: Type.Object({ slug: Type.String(), name: Type.String(), did: Type.String() }),
  title: Type.String(),
  state: Narrowed<ItemState>(Type.String({ description: 'pending, accepted, declined or expired.' })),
  demo: Type.Boolean({ description: 'Demonstration data of a demo- tenant.' }),
  createdAt: DateTime,
  updatedAt: DateTime,
  expiresAt: Type.Union([DateTime, Type.Null()]),
});

const ElementName = Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' });

export const ChannelView = Type.Object({
  tenant: Type.String(),
  accountId: Type.String(),
  state: Type.String({ description: 'requested, active, declined or revoked.' }),
  elements: Type.Array(Type.String()),
  requestedBy: Type.String({ description: 'tenant or holder.' }),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ChannelView = Static<typeof ChannelView>;

/** An item a holder shares over a channel, as the organisation reads it. */
export const SharedItem = Type.Object({
  itemId: Type.String(),
  kind: Type.String(),
  title: Type.String(),
  elements: Type.Record(Type.String(), Type.Unknown()),
});

/** An account's items, newest first; `fixtures` is true when a listed item is demonstration data. */
export const ItemPage = ListPage('items', Envelope, { accountId: Type.String(), fixtures: Type.Boolean() });

/** An item accept or decline answers: its envelope, and on acceptance its contents. */
export const Decided = Type.Object({
  item: Envelope,
  offerUri: Type.Optional(Type.String()),
  deposit: Type.Optional(DepositView),
  channel: Type.Optional(ChannelView),
});

/** An item's sharing settings, each with its channel's state, and its sharing log. */
export const Sharing = Type.Object({
  itemId: Type.String(),
  shares: Type.Array(Type.Object({ tenant: Type.String(), elements: Type.Array(Type.String()), channel: Type.String() })),
  log: Type.Array(Type.Object({ tenant: Type.String(), elements: Type.Array(Type.String()), at: DateTime })),
});

export function walletRoutes(wallet: WalletService, sharing: SharingService): RouteGroup {
  return {
    name: 'wallet',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/api/wallet/{accountId}/items',
        auth: 'public',
        stability: 'unpromised',
        summary: 'The envelopes of what the service holds for an account, newest first (docs/wallet.md).',
        params: Type.Object({ accountId: AccountId }),
        querystring: PageQuery(),
        responses: {
          200: {
            description:
              'Envelopes only. Offers and deposits appear once the account is a member of their tenant; fixtures is true when a listed item is demonstration data.',
            schema: ItemPage,
          },
          400: refusal('invalid_request', 'a malformed account id, limit, cursor, since or until.'),
        },
        handler: async (request) => {
          return wallet.list(request.params.accountId, pageParams(request.query));
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/api/wallet/{accountId}/items/{itemId}/accept',
        aliases: ['/v1/wallet/{accountId}/items/{itemId}/accept'],
        auth: 'holder',
        stability: 'promised',
        undocumented: 'The interface leaves the answer unpublished; docs/wallet.md states it.',
        summary: 'Accept a wallet item, and receive its contents; or decline it (docs/wallet.md).',
        params: Type.Object({ accountId: AccountId, itemId: ItemId }),
        body: Type.Object(
          {
            decision: Type.Optional(
              Type.Union([Type.Literal('accept'), Type.Literal('decline')], { description: 'Default accept.' }),
            ),
          },
          { additionalProperties: false },
        ),
        bodyOptional: true,
        responses: {
          200: {
            description: 'The item as decided; once accepted, its contents (an offer: offerUri).',
            schema: Decided,
          },
          400: refusal(['invalid_request', 'malformed_json']),
          401: refusal('unauthorized'),
          403: refusal('account_mismatch', 'the path names another account than the signer.'),
          404: refusal('unknown_item'),
          409: refusal(
            ['item_expired', 'item_decided', 'channel_state'],
            'channel_state when the organisation withdrew its request.',
          ),
        },
        handler: async (request) => {
          const { accountId, itemId } = request.params;
          return wallet.decide(accountId, itemId, request.body.decision ?? 'accept');
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/api/wallet/{accountId}/items/{itemId}/sharing',
        aliases: ['/v1/wallet/{accountId}/items/{itemId}/sharing'],
        auth: 'holder',
        stability: 'promised',
        undocumented: 'The interface leaves the body and answer unpublished; docs/wallet.md states them.',
        summary:
          'Which channels may receive which elements of an item; revoke channels; read the item’s sharing log (docs/wallet.md).',
        params: Type.Object({ accountId: AccountId, itemId: ItemId }),
        body: Type.Object(
          {
            shares: Type.Optional(
              Type.Array(
                Type.Object(
                  { tenant: Slug, elements: Type.Array(ElementName, { maxItems: 32 }) },
                  { additionalProperties: false },
                ),
                { maxItems: 16, description: 'Replaces the item’s settings; absent: unchanged.' },
              ),
            ),
            revoke: Type.Optional(Type.Array(Slug, { maxItems: 16, description: 'Tenants whose channel ends now.' })),
          },
          { additionalProperties: false },
        ),
        bodyOptional: true,
        responses: {
          200: {
            description: 'The item’s settings now, each with its channel’s state, and its sharing log, newest first.',
            schema: Sharing,
          },
          400: refusal(['invalid_request', 'malformed_json', 'unknown_element']),
          401: refusal('unauthorized'),
          403: refusal('account_mismatch'),
          404: refusal(['unknown_item', 'unknown_tenant']),
          409: refusal(
            ['item_not_accepted', 'item_not_shareable', 'channel_state'],
            'channel_state when there is nothing live to revoke.',
          ),
        },
        handler: async (request) => sharing.share(request.params.accountId, request.params.itemId, request.body as SharingInput),
      }),
    ],
  };
}
