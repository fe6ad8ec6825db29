import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { atEveryIssuer, PUBLIC_ARTIFACT } from '../../http/issuer-routes.ts';
import { defineRoute, issuerRoute, type RouteGroup } from '../../http/route.ts';
import { OPERATOR_ERRORS, refusal, Slug } from '../../http/schemas/common.ts';
import { type RevokeSelector, STATUS_LIST_MEDIA_TYPE, STATUS_LIST_TTL_S, type StatusService } from './status-service.ts';

const Seq = Type.String({ pattern: '^[1-9][0-9]{0,8}$', description: 'List sequence number, from 1.' });

export const SelectorFields = {
  status: Type.Optional(
    Type.Object(
      { uri: Type.String({ maxLength: 2048 }), idx: Type.Integer({ minimum: 0 }) },
      { additionalProperties: false, description: "The credential's own status.status_list reference." },
    ),
  ),
  credentialId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  offerId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Every credential collected from this offer.' }),
  ),
};

/** A revoked credential, as every revocation answers it. */
export const Revocation = Type.Object({
  credentialId: Type.String(),
  typeId: Type.String(),
  status: Type.Object({ uri: Type.String(), idx: Type.Integer() }),
  issuedAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.String({ format: 'date-time', description: 'The first revocation; repeating it keeps this time.' }),
});

export const Revoked = Type.Object({ revoked: Type.Array(Revocation) });

/** Exactly one of status, credentialId and offerId names what to revoke. */
export function selectorOf(body: Record<string, unknown>): RevokeSelector {
  const given = (['status', 'credentialId', 'offerId'] as const).filter((k) => body[k] !== undefined);
  if (given.length !== 1) {
    throw new ServiceError('invalid_request', 'Name the credential by exactly one of status, credentialId or offerId.');
  }
  return body as RevokeSelector;
}

export function statusRoutes(status: StatusService): RouteGroup {
  const listRoutes = atEveryIssuer('/status/{seq}', (path, tenantOf, tenantParam) =>
    defineRoute({
      ...PUBLIC_ARTIFACT,
      path,
      summary: 'A signed token status list (draft-ietf-oauth-status-list), one bit per credential.',
      params: Type.Object({ seq: Seq, ...tenantParam }),
      responses: {
        200: { description: 'The Status List Token.', contentType: STATUS_LIST_MEDIA_TYPE },
        404: refusal(['unknown_tenant', 'unknown_status_list']),
      },
      handler: async (request, reply) => {
        const params = request.params as Record<string, string>;
        const jwt = await status.token(tenantOf(params), Number(params.seq));
        return reply.type(STATUS_LIST_MEDIA_TYPE).header('cache-control', `public, max-age=${STATUS_LIST_TTL_S}`).send(jwt);
      },
    }),
  );

  /** Why, given by the issuer: kept in the audit entry of each credential revoked now (docs/status-lists.md). */
  const reason = Type.Optional(Type.String({ minLength: 3, maxLength: 500, description: 'Why: kept in the audit log.' }));
  const responses = {
    200: { description: 'The revoked credentials, revoked now or before.', schema: Revoked },
    ...OPERATOR_ERRORS,
    404: refusal(['unknown_tenant', 'unknown_credential'], 'nothing of this tenant matches.'),
  };

  return {
    name: 'status',
    routes: [
      ...listRoutes,
      defineRoute({
        method: 'POST',
        path: '/api/revoke',
        ...issuerRoute(['revocation']),
        scope: { tenantIn: 'body' },
        stability: 'unpromised',
        summary: 'Revoke credentials of a tenant (docs/status-lists.md).',
        body: Type.Object(
          { tenant: Slug, ...SelectorFields, reason },
          {
            additionalProperties: false,
            examples: [
              {
                tenant: 'acme-transit',
                status: { uri: 'https://rail.example.org/t/acme-transit/status/1', idx: 48213 },
                reason: 'The pass was reported stolen.',
              },
            ],
          },
        ),
        responses,
        handler: async (request) => {
          const { tenant, reason: why, ...rest } = request.body;
          return { revoked: (await status.revoke(tenant, selectorOf(rest), operatorActor(operatorOf(request)), why)).views };
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/api/tenants/{tenant}/revoke',
        ...issuerRoute(['revocation']),
        scope: { tenantIn: 'params' },
        stability: 'unpromised',
        summary: 'Revoke credentials issued by this tenant (docs/status-lists.md).',
        params: Type.Object({ tenant: Slug }),
        body: Type.Object(
          { ...SelectorFields, reason },
          {
            additionalProperties: false,
            examples: [{ offerId: 'off_Yp3kT9wQm2LxR7vB4nZc8A', reason: 'Offered to the wrong holder.' }],
          },
        ),
        responses,
        handler: async (request) => {
          const actor = operatorActor(operatorOf(request));
          const { reason: why, ...selector } = request.body;
          return { revoked: (await status.revoke(request.params.tenant, selectorOf(selector), actor, why)).views };
        },
      }),
    ],
  };
}
