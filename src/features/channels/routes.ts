import { Type } from '@sinclair/typebox';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { ListPage, PageQuery, pageParams } from '../../http/list.ts';
import { defineRoute, internalOperatorRoute, type RouteDef, type RouteGroup } from '../../http/route.ts';
import { AccountId, OPERATOR_ERRORS, refusal, Slug } from '../../http/schemas/common.ts';
import { CHANNEL_STATES, type ChannelState } from '../../ports/channel-store.ts';
import { ChannelView, SharedItem } from '../wallet/routes.ts';
import type { ChannelAction, ChannelService } from './channel-service.ts';

const ElementName = Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' });
const ROLES = ['owner', 'tenant-admin'] as const;

const actionRoute = (channels: ChannelService, action: ChannelAction, summary: string): RouteDef =>
  defineRoute({
    method: 'POST',
    path: `/api/org-channels/{tenant}/{accountId}/${action}`,
    ...internalOperatorRoute('Console operation; docs/wallet.md states its shape.'),
    roles: [...ROLES],
    scope: { tenantIn: 'params' },
    scopes: ['channels'],
    summary,
    params: Type.Object({ tenant: Slug, accountId: AccountId }),
    responses: {
      200: { description: 'The channel after the action.', schema: ChannelView },
      ...OPERATOR_ERRORS,
      404: refusal('unknown_channel'),
      409: refusal('channel_state'),
    },
    handler: async (request) => {
      const { tenant, accountId } = request.params;
      return channels.act(tenant, accountId, action, operatorActor(operatorOf(request)));
    },
  });

export function channelRoutes(channels: ChannelService): RouteGroup {
  return {
    name: 'org-channels',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/api/org-channels/request',
        ...internalOperatorRoute('Console operation; docs/wallet.md states its shape.'),
        roles: [...ROLES],
        scope: { tenantIn: 'body' },
        scopes: ['channels'],
        summary:
          'Ask a holder account for a data channel naming the elements wanted; it arrives as a wallet item (docs/wallet.md).',
        body: Type.Object(
          { tenant: Slug, accountId: AccountId, elements: Type.Array(ElementName, { minItems: 1, maxItems: 32 }) },
          { additionalProperties: false },
        ),
        responses: {
          201: {
            description: 'The channel, requested, and the wallet item.',
            schema: Type.Object({ channel: ChannelView, itemId: Type.String() }),
          },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_tenant'),
          409: refusal('channel_state', 'the pair already has a requested or active channel.'),
        },
        handler: async (request, reply) =>
          reply.code(201).send(await channels.request(request.body, operatorActor(operatorOf(request)))),
      }),
      defineRoute({
        method: 'GET',
        path: '/api/org-channels',
        ...internalOperatorRoute('Console operation; docs/wallet.md states its shape.'),
        roles: [...ROLES, 'support'],
        scope: { tenantIn: 'query' },
        scopes: ['channels'],
        summary: 'The tenant’s channels; each active one with what its holder shares over it now (docs/wallet.md).',
        querystring: PageQuery({
          tenant: Type.Optional(Slug),
          state: Type.Optional(Type.Union(CHANNEL_STATES.map((s) => Type.Literal(s)))),
        }),
        responses: {
          200: {
            description: 'Channels by tenant and account; nextCursor null on the last page.',
            schema: ListPage(
              'channels',
              Type.Object({ ...ChannelView.properties, shared: Type.Optional(Type.Array(SharedItem)) }),
            ),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => {
          const { tenant, state } = request.query;
          return channels.list({ tenant, state: state as ChannelState | undefined }, pageParams(request.query));
        },
      }),
      actionRoute(channels, 'accept', 'Accept a channel the holder asked for (docs/wallet.md).'),
      actionRoute(channels, 'decline', 'Decline a channel the holder asked for (docs/wallet.md).'),
      actionRoute(channels, 'revoke', 'End a channel, or withdraw the organisation’s own request (docs/wallet.md).'),
    ],
  };
}
