import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../core/events.ts';
import { idPattern } from '../../core/ids.ts';
import { LIST_SCOPE, ListPage, ListQuery, listParams } from '../../http/admin/kit.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { defineRoute, internalOperatorRoute, type RouteGroup } from '../../http/route.ts';
import { AdminMutation, DateTimeView, Nullable, OPERATOR_ERRORS, refusal, Slug } from '../../http/schemas/common.ts';
import { INTEGRATION_READ, INTEGRATION_WRITE } from '../integration/roles.ts';
import { Delivery, Webhook, WithSecret } from './schemas.ts';
import { MAX_COVERAGE_DAYS, type WebhookService } from './webhook-service.ts';

const UNDOCUMENTED = 'Back-office operation; docs/webhooks.md states its shape.';

const WebhookId = Type.String({ pattern: idPattern('webhook') });
const DeliveryId = Type.String({ pattern: idPattern('delivery') });
const EventName = Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)));

const Attempt = Type.Object({
  n: Type.Integer(),
  at: DateTimeView,
  status: Nullable(Type.Integer()),
  ok: Type.Boolean(),
  latencyMs: Type.Integer(),
  error: Nullable(Type.String()),
});

const unknownWebhook = { 404: refusal('unknown_webhook') };
const unknownDelivery = { 404: refusal('unknown_delivery') };

/** Webhook endpoints and their deliveries (docs/webhooks.md), under /api/admin/integration. */
export function webhookRoutes(webhooks: WebhookService): RouteGroup {
  const base = '/api/admin/integration';
  const common = internalOperatorRoute(UNDOCUMENTED);
  return {
    name: 'integration-webhooks',
    routes: [
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/webhooks`,
        roles: INTEGRATION_WRITE,
        scope: { tenantIn: 'body' },
        summary: 'Register a webhook endpoint; its signing secret is shown this once.',
        body: Type.Object(
          {
            tenant: Slug,
            url: Type.String({ minLength: 1, maxLength: 2048 }),
            events: Type.Array(EventName, { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true }),
          },
          { additionalProperties: false },
        ),
        responses: {
          201: { description: 'The endpoint, with its secret.', schema: AdminMutation({ webhook: WithSecret }) },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_tenant'),
          409: refusal('webhook_limit'),
        },
        handler: async (request, reply) => {
          reply.code(201);
          return webhooks.register(operatorActor(operatorOf(request)), request.body);
        },
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/webhooks`,
        roles: INTEGRATION_READ,
        scope: LIST_SCOPE,
        summary: 'Webhook endpoints, newest first.',
        querystring: ListQuery(),
        responses: {
          200: {
            description: 'A page of endpoints.',
            schema: ListPage('webhooks', Webhook),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => webhooks.list(listParams(request)),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/webhooks/coverage`,
        roles: INTEGRATION_READ,
        scope: 'none',
        summary: 'Which event types each tenant’s endpoints cover, and which events went to no endpoint.',
        querystring: Type.Object(
          {
            days: Type.Optional(Type.String({ pattern: '^[1-9][0-9]?$', description: `1 to ${MAX_COVERAGE_DAYS}; default 7.` })),
          },
          { additionalProperties: false },
        ),
        responses: {
          200: {
            description: 'Coverage per tenant.',
            schema: Type.Object({
              since: DateTimeView,
              tenants: Type.Array(
                Type.Object({
                  tenant: Type.String(),
                  activeEndpoints: Type.Integer(),
                  covered: Type.Array(Type.String()),
                  events: Type.Array(
                    Type.Object({
                      type: Type.String(),
                      written: Type.Integer(),
                      wentNowhere: Type.Integer(),
                      notYetRouted: Type.Integer(),
                    }),
                  ),
                  uncovered: Type.Array(Type.String()),
                }),
              ),
            }),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => {
          const days = Math.min(MAX_COVERAGE_DAYS, Number(request.query.days ?? 7));
          return webhooks.coverage(operatorOf(request).tenant, days);
        },
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/webhooks/{webhookId}`,
        roles: INTEGRATION_READ,
        scope: 'none',
        summary: 'One webhook endpoint (never its secret).',
        params: Type.Object({ webhookId: WebhookId }),
        responses: { 200: { description: 'The endpoint.', schema: Webhook }, ...OPERATOR_ERRORS, ...unknownWebhook },
        handler: async (request) => webhooks.get(operatorOf(request).tenant, request.params.webhookId),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/webhooks/{webhookId}/active`,
        roles: INTEGRATION_WRITE,
        scope: 'none',
        summary: 'Activate or deactivate an endpoint; activating an active one sends it a webhook.ping.',
        params: Type.Object({ webhookId: WebhookId }),
        body: Type.Object({ active: Type.Boolean() }, { additionalProperties: false }),
        responses: {
          200: { description: 'The endpoint after the change.', schema: AdminMutation({ webhook: Webhook }) },
          ...OPERATOR_ERRORS,
          ...unknownWebhook,
        },
        handler: async (request) => {
          const principal = operatorOf(request);
          return webhooks.setActive(operatorActor(principal), principal.tenant, request.params.webhookId, request.body.active);
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/webhooks/{webhookId}/rotate-secret`,
        roles: INTEGRATION_WRITE,
        scope: 'none',
        summary: 'Replace the signing secret; the new one is shown this once and signs every attempt from now on.',
        params: Type.Object({ webhookId: WebhookId }),
        responses: {
          200: { description: 'The endpoint with its new secret.', schema: AdminMutation({ webhook: WithSecret }) },
          ...OPERATOR_ERRORS,
          ...unknownWebhook,
        },
        handler: async (request) => {
          const principal = operatorOf(request);
          return webhooks.rotateSecret(operatorActor(principal), principal.tenant, request.params.webhookId);
        },
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/deliveries`,
        roles: INTEGRATION_READ,
        scope: LIST_SCOPE,
        summary: 'Webhook deliveries, newest first.',
        querystring: ListQuery({
          webhookId: Type.Optional(WebhookId),
          state: Type.Optional(
            Type.Union([Type.Literal('pending'), Type.Literal('failed'), Type.Literal('delivered'), Type.Literal('dead')]),
          ),
        }),
        responses: {
          200: {
            description: 'A page of deliveries.',
            schema: ListPage('deliveries', Delivery),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => {
          const { webhookId, state } = request.query;
          return webhooks.deliveries(listParams(request), {
            ...(webhookId === undefined ? {} : { webhookId }),
            ...(state === undefined ? {} : { state }),
          });
        },
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/deliveries/{deliveryId}`,
        roles: INTEGRATION_READ,
        scope: 'none',
        summary: 'One delivery with every attempt: time, status, latency, error.',
        params: Type.Object({ deliveryId: DeliveryId }),
        responses: {
          200: { description: 'The delivery.', schema: Type.Object({ ...Delivery.properties, attemptLog: Type.Array(Attempt) }) },
          ...OPERATOR_ERRORS,
          ...unknownDelivery,
        },
        handler: async (request) => webhooks.delivery(operatorOf(request).tenant, request.params.deliveryId),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/deliveries/{deliveryId}/redrive`,
        roles: INTEGRATION_WRITE,
        scope: 'none',
        summary: 'Send a dead delivery, or a failed one waiting for its retry, again now.',
        params: Type.Object({ deliveryId: DeliveryId }),
        responses: {
          200: {
            description: 'The delivery, queued again.',
            schema: AdminMutation({ delivery: Type.Object({ ...Delivery.properties, attemptLog: Type.Array(Attempt) }) }),
          },
          ...OPERATOR_ERRORS,
          ...unknownDelivery,
          409: refusal(['delivery_state', 'webhook_inactive']),
        },
        handler: async (request) => {
          const principal = operatorOf(request);
          return webhooks.redrive(operatorActor(principal), principal.tenant, request.params.deliveryId);
        },
      }),
    ],
  };
}
