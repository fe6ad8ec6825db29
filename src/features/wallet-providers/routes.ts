import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.ts';
import { idPattern } from '../../core/ids.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { ListPage, PAGE_QUERY, pageParams } from '../../http/list.ts';
import { defineRoute, internalOperatorRoute, type RouteGroup } from '../../http/route.ts';
import { DisplayName, DisplayText, Narrowed, OPERATOR_ERRORS, refusal } from '../../http/schemas/common.ts';
import { PROVIDER_STATES, type ProviderState } from '../../ports/wallet-provider-store.ts';
import type { ProviderView, WalletProviderService } from './provider-service.ts';

const WalletId = Type.String({ pattern: idPattern('walletProvider') });
const DateTime = Type.String({ format: 'date-time' });
export const Provider = Type.Object({
  walletId: Type.String(),
  name: Type.String(),
  homepage: Type.String(),
  contact: Type.Union([Type.String(), Type.Null()]),
  state: Narrowed<ProviderState>(Type.String({ description: 'requested, admitted, rejected or suspended.' })),
  reason: Type.Union([Type.String(), Type.Null()]),
  createdAt: DateTime,
  updatedAt: DateTime,
});
const UNDOCUMENTED = 'Console operation; docs/wallet.md states its shape.';
const LIST_FIELDS = Object.keys(PAGE_QUERY) as (keyof typeof PAGE_QUERY)[];

export function providerRoutes(providers: WalletProviderService): RouteGroup {
  return {
    name: 'wallets',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/api/wallets',
        ...internalOperatorRoute(UNDOCUMENTED),
        roles: ['owner', 'support'],
        scope: 'platform',
        summary: 'The wallet providers this deployment admits: register one’s request, or list them (docs/wallet.md).',
        body: Type.Object(
          {
            action: Type.Union([Type.Literal('register'), Type.Literal('list')]),
            name: Type.Optional(DisplayName(100)),
            homepage: Type.Optional(Type.String({ pattern: '^https://\\S+$', maxLength: 200 })),
            contact: Type.Optional(Type.String({ pattern: '^[^\\s@]{1,64}@[^\\s@]{1,189}$', maxLength: 254 })),
            state: Type.Optional(Type.Union(PROVIDER_STATES.map((s) => Type.Literal(s)))),
            ...PAGE_QUERY,
          },
          {
            additionalProperties: false,
            description:
              'register takes name, homepage and optionally contact; list takes state and the list fields (limit, cursor, since, until).',
          },
        ),
        responses: {
          200: {
            description: 'list: providers, newest first; nextCursor null on the last page.',
            schema: ListPage('wallets', Provider),
          },
          201: { description: 'register: the provider, requested.', schema: Provider },
          ...OPERATOR_ERRORS,
          409: refusal('conflict', 'a provider with this homepage is registered.'),
        },
        handler: async (request, reply) => {
          const { action, name, homepage, contact, state } = request.body;
          const forRegister = name !== undefined || homepage !== undefined || contact !== undefined;
          const forList = state !== undefined || LIST_FIELDS.some((f) => request.body[f] !== undefined);
          if (action === 'list') {
            if (forRegister) throw invalid('list takes state, limit, cursor, since and until only');
            return providers.list(state as ProviderState | undefined, pageParams(request.body));
          }
          if (forList || name === undefined || homepage === undefined) throw invalid('register takes name, homepage and contact');
          const made: ProviderView = await providers.register(
            { name, homepage, ...(contact === undefined ? {} : { contact }) },
            operatorActor(operatorOf(request)),
          );
          return reply.code(201).send(made);
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/api/wallets/accept',
        ...internalOperatorRoute(UNDOCUMENTED),
        roles: ['owner'],
        scope: 'platform',
        summary: 'Admit a wallet provider (or reinstate a suspended one): it is listed to holders (docs/wallet.md).',
        body: Type.Object({ walletId: WalletId }, { additionalProperties: false }),
        responses: {
          200: { description: 'The provider, admitted.', schema: Provider },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_wallet'),
          409: refusal('wallet_state'),
        },
        handler: async (request) =>
          providers.decide(request.body.walletId, 'accept', undefined, operatorActor(operatorOf(request))),
      }),
      defineRoute({
        method: 'POST',
        path: '/api/wallets/respond',
        ...internalOperatorRoute(UNDOCUMENTED),
        roles: ['owner'],
        scope: 'platform',
        summary:
          'Answer a wallet provider otherwise: reject its request, or suspend an admitted one, with a reason (docs/wallet.md).',
        body: Type.Object(
          {
            walletId: WalletId,
            decision: Type.Union([Type.Literal('reject'), Type.Literal('suspend')]),
            reason: DisplayText(500),
          },
          { additionalProperties: false },
        ),
        responses: {
          200: { description: 'The provider after the decision.', schema: Provider },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_wallet'),
          409: refusal('wallet_state'),
        },
        handler: async (request) =>
          providers.decide(request.body.walletId, request.body.decision, request.body.reason, operatorActor(operatorOf(request))),
      }),
    ],
  };
}

const invalid = (message: string) => new ServiceError('invalid_request', `${message}.`);
