import { Type } from '@sinclair/typebox';
import { PARTNER_KEYS, PARTNER_READ } from '../../core/partner-pipeline.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { AdminMutation, OPERATOR_ERRORS, refusal } from '../../http/schemas/common.ts';
import type { PartnerAccess } from './partner-access.ts';
import type { PartnerService } from './partner-service.ts';
import {
  ApplicationBody,
  Code,
  Email,
  KeyId,
  KeyLabel,
  KeyView,
  KeyWithSecret,
  ScopeName,
  StatusBody,
  StatusView,
} from './schemas.ts';

const UNDOCUMENTED = 'The interface does not show partner onboarding’s bodies beyond the intake; docs/partners.md states ours.';

/** The session (and so the partner) of a partner-plane request; other operator credentials never reach here. */
export const partnerSessionOf = (request: Parameters<typeof operatorOf>[0]) => {
  const principal = operatorOf(request);
  if (!principal.partner) throw new Error('a partner route admitted a principal without a partner session');
  return principal.partner;
};

/**
 * Partner onboarding's public API and the partner's keys (docs/partners.md): the intake (strict,
 * bounded, metered per address, not CORS-open), reading one's own application, the mailed-code
 * session, and keys minted inside the grant.
 */
export function partnerApiRoutes(partners: PartnerService, access: PartnerAccess): RouteGroup {
  const common = { stability: 'unpromised', undocumented: UNDOCUMENTED } as const;
  const keyRoute = { ...common, auth: 'operator', scope: 'none' } as const;
  return {
    name: 'partners',
    routes: [
      defineRoute({
        ...common,
        method: 'POST',
        path: '/api/partners/applications',
        auth: 'public',
        // Interface spec, Limits 3: rate-limited per caller (docs/security.md, "Anonymous budgets").
        budget: 'partner-intake',
        summary: 'Apply to the partner programme: a new application at stage applied; answers its id and status token (once).',
        body: ApplicationBody,
        responses: {
          201: {
            description: 'Filed. The status token is shown this once; only its hash is kept.',
            schema: Type.Object({ applicationId: Type.String(), statusToken: Type.String() }),
          },
          400: refusal(
            ['invalid_request', 'malformed_json'],
            'invalid_request names the field: an unknown one, a stage, a tenant, a scope…',
          ),
          429: refusal('rate_limited', 'this address has filed its applications for the hour'),
        },
        handler: async (request, reply) => {
          const { applicationId, statusToken } = await partners.apply(request.body, { kind: 'public' });
          return reply.code(201).send({ applicationId, statusToken });
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/api/partners/applications/status',
        auth: 'public',
        budget: 'partner-status',
        summary: 'Read your own application: its stage and history (never an internal note).',
        body: StatusBody,
        responses: {
          200: { description: 'The application as its applicant sees it.', schema: StatusView },
          400: refusal(['invalid_request', 'malformed_json']),
          404: refusal('unknown_application', 'no application matches this id and token (one answer for both)'),
          429: refusal('rate_limited'),
        },
        handler: async (request) => partners.status(request.body.applicationId, request.body.statusToken),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/api/partners/session/start',
        auth: 'public',
        spends: ['partner-signin'],
        summary: 'Mail a sign-in code to a member of an approved partner’s team; 202 whether or not the address is one.',
        body: Type.Object({ contactEmail: Email }, { additionalProperties: false }),
        responses: {
          202: {
            description: 'Accepted: a code is mailed if the address may sign in.',
            schema: Type.Object({ sent: Type.Literal(true) }),
          },
          400: refusal(['invalid_request', 'malformed_json']),
          429: refusal('rate_limited', 'too many codes for this address or from this caller'),
        },
        handler: async (request, reply) => {
          const limits = await access.start(request.body.contactEmail, request.ip);
          return reply
            .code(202)
            .headers(limits)
            .send({ sent: true as const });
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/api/partners/session/verify',
        auth: 'public',
        summary: 'Exchange the mailed code for a partner session bearer (for the keys API and the portal).',
        body: Type.Object({ contactEmail: Email, code: Code }, { additionalProperties: false }),
        responses: {
          200: {
            description: 'The session: a bearer, its lifetime in seconds, and the partner’s tenant (null before it is linked).',
            schema: Type.Object({
              token: Type.String(),
              expiresIn: Type.Integer(),
              tenant: Type.Union([Type.String(), Type.Null()]),
            }),
          },
          400: refusal(['invalid_code', 'invalid_request']),
        },
        handler: async (request) => access.verify(request.body.contactEmail, request.body.code),
      }),
      defineRoute({
        ...keyRoute,
        method: 'GET',
        path: '/api/partners/keys',
        roles: PARTNER_READ,
        summary: 'Your partner’s keys (never their secrets).',
        responses: {
          200: { description: 'The keys, newest first.', schema: Type.Object({ keys: Type.Array(KeyView) }) },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => ({ keys: await access.keys(partnerSessionOf(request)) }),
      }),
      defineRoute({
        ...keyRoute,
        method: 'POST',
        path: '/api/partners/keys',
        roles: PARTNER_KEYS,
        summary: 'Mint a key inside your grant: scopes a subset of the grant’s, the grant’s rate class, your tenant.',
        body: Type.Object(
          { label: KeyLabel, scopes: Type.Array(ScopeName, { minItems: 1, maxItems: 10 }) },
          { additionalProperties: false },
        ),
        responses: {
          201: { description: 'Minted; the secret is shown this once.', schema: AdminMutation({ key: KeyWithSecret }) },
          ...OPERATOR_ERRORS,
          403: refusal(
            ['forbidden', 'outside_grant'],
            'forbidden to a viewer; outside_grant: a scope the grant does not include.',
          ),
          409: refusal(['no_grant', 'conflict'], 'no_grant: not linked to a tenant yet; conflict: too many active keys.'),
        },
        handler: async (request, reply) => {
          const principal = operatorOf(request);
          const minted = await access.mint(partnerSessionOf(request), operatorActor(principal), request.body);
          return reply.code(201).send(minted);
        },
      }),
      defineRoute({
        ...keyRoute,
        method: 'POST',
        path: '/api/partners/keys/{id}/revoke',
        roles: PARTNER_KEYS,
        summary: 'Revoke one of your keys: refused on its next call, on every process.',
        params: Type.Object({ id: KeyId }),
        bodyOptional: true,
        body: Type.Object({}, { additionalProperties: false }),
        responses: {
          200: { description: 'Revoked.', schema: AdminMutation({ key: KeyView }) },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_token', 'your partner has no key with this id'),
          409: refusal('token_revoked'),
        },
        handler: async (request) =>
          access.revoke(partnerSessionOf(request), operatorActor(operatorOf(request)), request.params.id),
      }),
      defineRoute({
        ...keyRoute,
        method: 'POST',
        path: '/api/partners/keys/{id}/rotate',
        roles: PARTNER_KEYS,
        summary: 'A new secret for one of your keys; the old one is refused on its next call.',
        params: Type.Object({ id: KeyId }),
        bodyOptional: true,
        body: Type.Object({}, { additionalProperties: false }),
        responses: {
          200: { description: 'Rotated; the new secret is shown this once.', schema: AdminMutation({ key: KeyWithSecret }) },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_token'),
          409: refusal('token_revoked'),
        },
        handler: async (request) =>
          access.rotate(partnerSessionOf(request), operatorActor(operatorOf(request)), request.params.id),
      }),
    ],
  };
}
