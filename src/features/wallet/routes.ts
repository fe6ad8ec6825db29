import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { AccountId, errorResponse, PageLimit, pageLimit } from '../../http/schemas/common.ts';
import { DepositView } from '../deposits/routes.ts';
import { ITEMS_PAGE_DEFAULT, ITEMS_PAGE_MAX, type WalletService } from './wallet-service.ts';

const ItemId = Type.String({ pattern: '^itm_[A-Za-z0-9_-]{22}$' });
const DateTime = Type.String({ format: 'date-time' });

const Envelope = Type.Object({
  itemId: Type.String(),
  kind: Type.String({ description: 'offer, deposit or channel-request.' }),
  tenant: Type.Object({ slug: Type.String(), name: Type.String(), did: Type.String() }),
  title: Type.String(),
  state: Type.String({ description: 'pending, accepted, declined or expired.' }),
  demo: Type.Boolean({ description: 'Demonstration data of a demo- tenant.' }),
  createdAt: DateTime,
  updatedAt: DateTime,
  expiresAt: Type.Union([DateTime, Type.Null()]),
});

export function walletRoutes(wallet: WalletService): RouteGroup {
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
        querystring: Type.Object(
          {
            limit: Type.Optional({
              ...PageLimit,
              description: `Items per page, at most ${ITEMS_PAGE_MAX}; default ${ITEMS_PAGE_DEFAULT}.`,
            }),
            cursor: Type.Optional(Type.String({ maxLength: 64, description: 'nextCursor of the previous page.' })),
          },
          { additionalProperties: false },
        ),
        responses: {
          200: {
            description:
              'Envelopes only. Offers and deposits appear once the account is a member of their tenant; fixtures is true when a listed item is demonstration data.',
            schema: Type.Object({
              accountId: Type.String(),
              fixtures: Type.Boolean(),
              items: Type.Array(Envelope),
              nextCursor: Type.Optional(Type.String()),
            }),
          },
          400: errorResponse('invalid_request: a malformed account id, limit or cursor.'),
        },
        handler: async (request) => {
          const { limit, cursor } = request.query;
          return wallet.list(request.params.accountId, pageLimit(limit, ITEMS_PAGE_DEFAULT, ITEMS_PAGE_MAX), cursor);
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
            schema: Type.Object({
              item: Envelope,
              offerUri: Type.Optional(Type.String()),
              deposit: Type.Optional(DepositView),
            }),
          },
          400: errorResponse('invalid_request or malformed_json.'),
          401: errorResponse('unauthorized'),
          403: errorResponse('account_mismatch: the path names another account than the signer.'),
          404: errorResponse('unknown_item'),
          409: errorResponse('item_expired or item_decided.'),
        },
        handler: async (request) => {
          const { accountId, itemId } = request.params;
          return wallet.decide(accountId, itemId, request.body.decision ?? 'accept');
        },
      }),
    ],
  };
}
