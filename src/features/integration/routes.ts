import { Type } from '@sinclair/typebox';
import { idPattern } from '../../core/ids.ts';
import { RATE_CLASS_NAMES, SCOPE_NAMES } from '../../core/integration-scopes.ts';
import { LIST_SCOPE, ListPage, ListQuery, listParams } from '../../http/admin/kit.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { defineRoute, internalOperatorRoute, type RouteGroup } from '../../http/route.ts';
import { AdminMutation, DateTimeView, DisplayText, Nullable, OPERATOR_ERRORS, refusal, Slug } from '../../http/schemas/common.ts';
import type { Provisioning } from './provisioning.ts';
import { INTEGRATION_MINT, INTEGRATION_READ, INTEGRATION_SECRETS, INTEGRATION_WRITE } from './roles.ts';
import type { IntegrationTokenService } from './token-service.ts';

const UNDOCUMENTED = 'Back-office operation; docs/integration.md states its shape.';

const RequestId = Type.String({ pattern: idPattern('provisioning') });
const TokenId = Type.String({ pattern: idPattern('integrationToken') });
const ScopeName = Type.Union(SCOPE_NAMES.map((s) => Type.Literal(s)));
const RateClassName = Type.Union(RATE_CLASS_NAMES.map((c) => Type.Literal(c)));

const Request = Type.Object({
  id: Type.String(),
  tenant: Type.String(),
  label: Type.String(),
  scopes: Type.Array(Type.String()),
  rateClass: Type.String(),
  reason: Type.String(),
  state: Type.String({ description: 'pending, approved, rejected, withdrawn or expired' }),
  requestedBy: Type.String(),
  createdAt: DateTimeView,
  expiresAt: DateTimeView,
  decidedBy: Nullable(Type.String()),
  decidedAt: Nullable(DateTimeView),
  note: Nullable(Type.String()),
  tokenId: Nullable(Type.String()),
});
const Token = Type.Object({
  id: Type.String(),
  tenant: Type.String(),
  label: Type.String(),
  scopes: Type.Array(Type.String()),
  rateClass: Type.String(),
  state: Type.String({ description: 'active or revoked' }),
  requestId: Nullable(Type.String()),
  createdBy: Type.String(),
  createdAt: DateTimeView,
  rotatedAt: Nullable(DateTimeView),
  revokedAt: Nullable(DateTimeView),
  revokedBy: Nullable(Type.String()),
  partnerId: Nullable(
    Type.String({ description: 'The partner that minted it in its portal (docs/partners.md); null for a provisioned token.' }),
  ),
});
const WithSecret = Type.Object({
  ...Token.properties,
  secret: Type.String({ description: 'The bearer token, shown this once.' }),
});

/** The provisioning ceremony, integration tokens and their options (docs/integration.md). */
export function integrationTokenRoutes(service: IntegrationTokenService, provisioning: Provisioning): RouteGroup {
  const base = '/api/admin/integration';
  const common = internalOperatorRoute(UNDOCUMENTED);
  return {
    name: 'integration-tokens',
    routes: [
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/key-options`,
        roles: INTEGRATION_READ,
        scope: 'none',
        summary: 'The scopes and rate classes a token (or a partner key) may carry.',
        responses: {
          200: {
            description: 'Scopes and rate classes.',
            schema: Type.Object({
              scopes: Type.Array(Type.Object({ name: Type.String(), description: Type.String() })),
              rateClasses: Type.Array(
                Type.Object({
                  name: Type.String(),
                  quota: Type.Integer(),
                  windowSeconds: Type.Integer(),
                  description: Type.String(),
                }),
              ),
            }),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async () => service.keyOptions(),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/provisioning`,
        roles: INTEGRATION_WRITE,
        scope: { tenantIn: 'body' },
        summary: 'Ask for a tenant-scoped integration token; another owner approves or rejects it.',
        body: Type.Object(
          {
            tenant: Slug,
            label: DisplayText(80),
            scopes: Type.Array(ScopeName, { minItems: 1, maxItems: SCOPE_NAMES.length, uniqueItems: true }),
            rateClass: RateClassName,
            reason: DisplayText(500),
          },
          { additionalProperties: false },
        ),
        responses: {
          201: { description: 'The request, pending.', schema: AdminMutation({ request: Request }) },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_tenant'),
        },
        handler: async (request, reply) => {
          reply.code(201);
          return provisioning.open(operatorOf(request), request.body);
        },
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/provisioning`,
        roles: INTEGRATION_READ,
        scope: LIST_SCOPE,
        summary: 'Provisioning requests, newest first.',
        querystring: ListQuery(),
        responses: {
          200: {
            description: 'A page of requests.',
            schema: ListPage('requests', Request),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => provisioning.requests(operatorOf(request), listParams(request)),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/provisioning/{requestId}`,
        roles: INTEGRATION_READ,
        scope: 'none',
        summary: 'One provisioning request.',
        params: Type.Object({ requestId: RequestId }),
        responses: {
          200: { description: 'The request.', schema: Request },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_provisioning_request'),
        },
        handler: async (request) => provisioning.request(operatorOf(request), request.params.requestId),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/provisioning/{requestId}/reject`,
        roles: INTEGRATION_WRITE,
        scope: 'none',
        summary: 'Reject (or, for the one who asked, withdraw) a pending provisioning request.',
        params: Type.Object({ requestId: RequestId }),
        body: Type.Object({ note: Type.Optional(DisplayText(500)) }, { additionalProperties: false }),
        bodyOptional: true,
        responses: {
          200: { description: 'The request, rejected.', schema: AdminMutation({ request: Request }) },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_provisioning_request'),
          409: refusal('provisioning_state'),
        },
        handler: async (request) => {
          return provisioning.reject(operatorOf(request), request.params.requestId, request.body?.note ?? null);
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/tokens`,
        roles: INTEGRATION_MINT,
        scope: 'platform',
        summary:
          'Approve a pending provisioning request and mint its token, shown this once (an owner other than the one who asked).',
        body: Type.Object({ requestId: RequestId }, { additionalProperties: false }),
        responses: {
          201: { description: 'The token, with its secret.', schema: AdminMutation({ token: WithSecret }) },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_provisioning_request'),
          409: refusal('provisioning_state'),
        },
        handler: async (request, reply) => {
          reply.code(201);
          return provisioning.approve(operatorOf(request), request.body.requestId);
        },
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/tokens`,
        roles: INTEGRATION_READ,
        scope: LIST_SCOPE,
        summary: 'Integration tokens, newest first (never their secrets).',
        querystring: ListQuery(),
        responses: {
          200: {
            description: 'A page of tokens.',
            schema: ListPage('tokens', Token),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => service.tokens(listParams(request)),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/tokens/{tokenId}/revoke`,
        roles: INTEGRATION_WRITE,
        scope: 'none',
        summary: 'Revoke a token: its next call is refused, on every process.',
        params: Type.Object({ tokenId: TokenId }),
        responses: {
          200: { description: 'The token, revoked.', schema: AdminMutation({ token: Token }) },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_token'),
          409: refusal('token_revoked'),
        },
        handler: async (request) => {
          const principal = operatorOf(request);
          return service.revoke(operatorActor(principal), principal.tenant, request.params.tokenId);
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/tokens/{tokenId}/rotate`,
        roles: INTEGRATION_SECRETS,
        scope: 'none',
        summary: 'Replace a token’s secret; the new one is shown this once and the old one stops working at once.',
        params: Type.Object({ tokenId: TokenId }),
        responses: {
          200: { description: 'The token, with its new secret.', schema: AdminMutation({ token: WithSecret }) },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_token'),
          409: refusal('token_revoked'),
        },
        handler: async (request) => {
          const principal = operatorOf(request);
          return service.rotate(operatorActor(principal), principal.tenant, request.params.tokenId);
        },
      }),
    ],
  };
}
