import { Type } from '@sinclair/typebox';
import { LIST_SCOPE, ListPage, ListQuery, listParams, listTenant } from '../../http/admin/kit.ts';
import { defineRoute, internalOperatorRoute, type RouteGroup } from '../../http/route.ts';
import { DateTimeView, Nullable, OPERATOR_ERRORS, refusal, Slug } from '../../http/schemas/common.ts';
import type { DepositViews } from '../deposits/deposit-views.ts';
import { CONTRACT_NAMES, Handshake, handshake, listContracts } from './contracts.ts';
import { INTEGRATION_READ } from './roles.ts';

const UNDOCUMENTED = 'Back-office operation; docs/integration.md states its shape.';
const DepositId = Type.String({ pattern: '^[A-Za-z0-9._:-]{1,64}$' });
const DepositSummary = Type.Object({
  depositId: Type.String(),
  tenant: Type.String(),
  accountId: Type.String(),
  productId: Type.String(),
  itemId: Type.String(),
  kind: Type.String(),
  contractVersion: Type.String(),
  createdAt: DateTimeView,
  chainSeq: Type.Integer(),
  // Erased with its holder's account (docs/account.md): accountId, kind and the body are then empty.
  erasedAt: Nullable(DateTimeView),
});

/** Integrator-facing contracts and the deposits made under them (docs/integration.md). */
export function contractRoutes(deposits: DepositViews): RouteGroup {
  const base = '/api/admin/integration';
  const common = internalOperatorRoute(UNDOCUMENTED);
  return {
    name: 'integration-contracts',
    routes: [
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/contracts`,
        roles: INTEGRATION_READ,
        scope: 'none',
        summary: 'The integrator-facing contracts, each version with its JSON Schema.',
        responses: {
          200: {
            description: 'The contracts.',
            schema: Type.Object({
              contracts: Type.Array(
                Type.Object({
                  name: Type.String(),
                  summary: Type.String(),
                  operation: Type.String(),
                  documentation: Type.String(),
                  versions: Type.Array(
                    Type.Object({
                      version: Type.String(),
                      status: Type.String(),
                      schema: Type.Record(Type.String(), Type.Unknown()),
                    }),
                  ),
                }),
              ),
            }),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async () => listContracts(),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/contracts/handshake`,
        roles: INTEGRATION_READ,
        scope: 'none',
        summary:
          'Check a payload against a version of a contract: accepted, or every reason it would be refused. Changes nothing.',
        body: Type.Object(
          {
            contract: Type.Union(CONTRACT_NAMES.map((n) => Type.Literal(n))),
            version: Type.String({ minLength: 1, maxLength: 16 }),
            payload: Type.Unknown(),
          },
          { additionalProperties: false },
        ),
        responses: {
          200: {
            description: 'The verdict.',
            schema: Handshake,
          },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => handshake(request.body.contract, request.body.version, request.body.payload),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/deposits`,
        roles: INTEGRATION_READ,
        scope: { tenantIn: 'query' },
        summary: 'A tenant’s deposits, newest first (envelopes, not bodies).',
        querystring: ListQuery({ tenant: Slug }),
        responses: {
          200: {
            description: 'A page of deposits.',
            schema: ListPage('deposits', DepositSummary),
          },
          ...OPERATOR_ERRORS,
        },
        // The query schema requires `tenant` (a chain is one tenant's); the kit's type leaves it optional.
        handler: async (request) => deposits.list(request.query.tenant as string, listParams(request)),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/deposits/integrity`,
        roles: INTEGRATION_READ,
        scope: LIST_SCOPE,
        summary: 'Recompute each tenant’s deposit hash chain and name the first break.',
        querystring: Type.Object({ tenant: Type.Optional(Slug) }, { additionalProperties: false }),
        responses: {
          200: {
            description: 'Per tenant: whether its chain holds, and where it first breaks.',
            schema: Type.Object({
              intact: Type.Boolean(),
              tenants: Type.Array(
                Type.Object({
                  tenant: Type.String(),
                  deposits: Type.Integer(),
                  head: Nullable(Type.Object({ seq: Type.Integer(), hash: Type.String() })),
                  intact: Type.Boolean(),
                  firstBreak: Nullable(
                    Type.Object({
                      seq: Type.Integer(),
                      depositId: Nullable(Type.String()),
                      reason: Type.String({ description: 'sequence, link, hash, body or head' }),
                    }),
                  ),
                }),
              ),
            }),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => deposits.integrity(listTenant(request) ?? undefined),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/deposits/{depositId}`,
        roles: INTEGRATION_READ,
        scope: { tenantIn: 'query' },
        summary: 'One deposit: its body as delivered and its link in the tenant’s chain.',
        params: Type.Object({ depositId: DepositId }),
        querystring: Type.Object({ tenant: Slug }, { additionalProperties: false }),
        responses: {
          200: {
            description: 'The deposit.',
            schema: Type.Object({
              ...DepositSummary.properties,
              body: Nullable(Type.Record(Type.String(), Type.Unknown())),
              bodyHash: Type.String(),
              prevHash: Type.String(),
              chainHash: Type.String(),
            }),
          },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_deposit'),
        },
        handler: async (request) => deposits.get(request.query.tenant, request.params.depositId),
      }),
    ],
  };
}
