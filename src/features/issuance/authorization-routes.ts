/**
 * The authorization code flow's operations (docs/haip.md, "Issuance"): at every issuer the
 * pushed authorization request endpoint, the authorization endpoint and its approval page, and
 * the way back from the issuer's sign-in hook; for the issuer's operators, the hook's approval
 * and the flow's settings.
 */
import { Type } from '@sinclair/typebox';
import { parse as parseCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';
import { ID_PREFIXES, idPattern } from '../../core/ids.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { atEveryIssuer, issuerParams, OAUTH_ENDPOINT } from '../../http/issuer-routes.ts';
import { defineRoute, issuerRoute, type RouteDef } from '../../http/route.ts';
import { htmlResponse, OPERATOR_ERRORS, oauthError, refusal, Slug } from '../../http/schemas/common.ts';
import { setSessionCookie } from '../../web/cookies.ts';
import { assertSameOriginForm } from '../../web/forms.ts';
import { sendPage } from '../../web/serve.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import { renderApprovalPage, renderReturnPage } from './authorization-page.ts';
import { type AuthorizationService, SESSION_TTL_S } from './authorization-service.ts';

/** The cookie that holds the opening browser's secret, scoped to the issuer's /authorize paths. */
export const AUTHORIZATION_COOKIE = 'openrail_authorization';

export interface AuthorizationDeps {
  tenants: TenantService;
  authorizations: AuthorizationService;
  urls: IssuerUrls;
  siteName: string;
}

const Id = Type.String({ pattern: idPattern('authorization'), description: 'An authorization request (azr_…).' });
/** An authorization request id of the right shape, for the examples. */
const EXAMPLE_ID = `${ID_PREFIXES.authorization}_${'A'.repeat(22)}`;

/** The request as the public sees it, for DPoP's htu and the wallet attestation headers. */
const seenOf = (request: FastifyRequest, url: string) => ({ method: request.method, url, headers: request.headers });

/** Operations of the `issuance` group (mounted with it, features/issuance/module.ts). */
export function authorizationRoutes(deps: AuthorizationDeps): RouteDef[] {
  const { tenants, authorizations, urls, siteName } = deps;
  const page = { auth: 'public', stability: 'unpromised', surface: 'page' } as const;
  const cookiePath = (slug: string) => `${urls.issuerPath(slug)}/authorize`;
  const browserSecret = (request: FastifyRequest) => parseCookie(request.headers.cookie ?? '')[AUTHORIZATION_COOKIE];

  return [
    ...atEveryIssuer('/par', (path, tenantOf, tenantParam) =>
      defineRoute({
        ...OAUTH_ENDPOINT,
        path,
        params: issuerParams(tenantParam),
        accepts: 'form',
        budget: 'authorization-push',
        summary:
          'Pushed authorization request (RFC 9126) of the authorization code flow, with PKCE S256 and the wallet attestation (HAIP 1.0).',
        // Every field of a pushed request is a short string, and there are few of them.
        body: Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 4096 }), {
          maxProperties: 32,
          examples: [
            {
              response_type: 'code',
              client_id: 'WALLET-CLIENT-ID-FROM-ITS-ATTESTATION',
              scope: 'season-pass',
              code_challenge: 'PKCE-S256-CHALLENGE-OF-43-BASE64URL-CHARS-XX',
              code_challenge_method: 'S256',
              redirect_uri: 'https://wallet.example/callback',
              state: 'WALLET-STATE',
            },
          ],
        }),
        responses: {
          201: {
            description: 'The request_uri to open at the authorization endpoint, and how long it lasts.',
            schema: Type.Object({ request_uri: Type.String(), expires_in: Type.Integer() }),
          },
          400: oauthError(
            'invalid_request (a parameter is missing or wrong; PKCE S256 is required), invalid_dpop_proof, or authorization_flow_off (HAIP issuance is off here, or the request needs an offer’s issuer_state).',
          ),
          401: oauthError('invalid_client: the wallet attestation or its proof of possession is missing, invalid or untrusted.'),
          404: oauthError('unknown_tenant'),
          415: oauthError('unsupported_media_type: the body is not a form.'),
          429: oauthError('rate_limited: the anonymous budget of this address or of the deployment is spent.'),
        },
        handler: async (request, reply) => {
          const tenant = tenantOf(request.params);
          // The form parser refuses a parameter sent twice (http/form.ts), and the schema keeps every value a string.
          const form = request.body as Record<string, string>;
          // The issuer (unknown: unknown_tenant; suspended: invalid_request) is read with the offer of its issuer_state.
          const answer = await authorizations.push(tenant, form, seenOf(request, `${urls.issuer(tenant)}/par`));
          return reply.code(201).header('cache-control', 'no-store').send(answer);
        },
      }),
    ),
    ...atEveryIssuer('/authorize', (path, tenantOf, tenantParam) =>
      defineRoute({
        ...page,
        method: 'GET',
        path,
        params: issuerParams(tenantParam),
        querystring: Type.Object({
          client_id: Type.String({ minLength: 1, maxLength: 512 }),
          request_uri: Type.String({ minLength: 1, maxLength: 512 }),
        }),
        summary:
          'Authorization endpoint: opens a pushed request in the holder’s browser, then the approval page or the issuer’s sign-in.',
        responses: {
          200: htmlResponse('The approval page.'),
          303: { description: 'To the issuer’s sign-in hook, with the authorization request’s id.' },
          400: htmlResponse('invalid_request or authorization_flow_off, as a page.'),
          404: htmlResponse('unknown_tenant, as a page.'),
          410: htmlResponse('authorization_ended: the request_uri is unknown, spent, expired or another client’s.'),
        },
        handler: async (request, reply) => {
          const slug = tenantOf(request.params);
          const opening = await authorizations.open(slug, request.query.client_id, request.query.request_uri);
          setSessionCookie(reply, {
            name: AUTHORIZATION_COOKIE,
            value: opening.browserSecret,
            path: cookiePath(slug),
            maxAgeMs: SESSION_TTL_S * 1000,
            origin: urls.origin,
          });
          if (opening.mode === 'hook') {
            return reply.code(303).header('location', opening.location).header('cache-control', 'no-store').send();
          }
          const rendered = renderApprovalPage(siteName, {
            issuerName: opening.issuer.name,
            type: opening.type,
            action: `${urls.issuerPath(slug)}/authorize`,
            authorizationId: opening.record.id,
            demo: opening.mode === 'demo',
          });
          return sendPage(reply, rendered, 'no-store');
        },
      }),
    ),
    ...atEveryIssuer('/authorize', (path, tenantOf, tenantParam) =>
      defineRoute({
        ...page,
        method: 'POST',
        path,
        params: issuerParams(tenantParam),
        accepts: 'form',
        summary: 'The approval page’s answer: approve or decline; the way back to the wallet, with the code or the refusal.',
        body: Type.Object(
          { authorization: Id, decision: Type.Union([Type.Literal('approve'), Type.Literal('decline')]) },
          { additionalProperties: false, examples: [{ authorization: EXAMPLE_ID, decision: 'approve' }] },
        ),
        beforeValidation: (request) => assertSameOriginForm(request, urls.origin),
        responses: {
          200: htmlResponse('The way back to the wallet.'),
          400: htmlResponse('invalid_request, as a page.'),
          403: htmlResponse('cross_origin_form: the form did not come from this service’s page.'),
          410: htmlResponse('authorization_ended: not this browser’s request, or it ended.'),
        },
        handler: async (request, reply) => {
          const approved = request.body.decision === 'approve';
          const slug = tenantOf(request.params);
          const location = await authorizations.decide(slug, request.body.authorization, browserSecret(request), approved);
          return sendPage(reply, renderReturnPage(siteName, { location, approved }), 'no-store');
        },
      }),
    ),
    ...atEveryIssuer('/authorize/continue', (path, tenantOf, tenantParam) =>
      defineRoute({
        ...page,
        method: 'GET',
        path,
        params: issuerParams(tenantParam),
        querystring: Type.Object({ authorization: Id, continuation: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }) }),
        summary:
          'Back from the issuer’s sign-in hook with the approval’s secret: the browser that opened the request is sent to the wallet with its code; any other browser ends the request.',
        responses: {
          303: { description: 'To the wallet’s redirect_uri with code, state and iss (RFC 9207).' },
          400: htmlResponse('invalid_request, as a page.'),
          409: htmlResponse('authorization_pending: the issuer has not approved yet.'),
          410: htmlResponse('authorization_ended: not this browser’s request, or it ended.'),
        },
        handler: async (request, reply) => {
          const tenant = await tenants.get(tenantOf(request.params));
          const { authorization, continuation } = request.query;
          const location = await authorizations.continue(tenant, authorization, continuation, browserSecret(request));
          return reply.code(303).header('location', location).header('cache-control', 'no-store').send();
        },
      }),
    ),
    defineRoute({
      method: 'POST',
      path: '/api/tenants/{tenant}/authorizations/{authorizationId}/approve',
      ...issuerRoute(['issuance']),
      scope: { tenantIn: 'params' },
      stability: 'unpromised',
      summary:
        'The issuer’s sign-in hook approves an opened authorization request with the holder’s subject; the browser then goes to continueUrl.',
      params: Type.Object({ tenant: Slug, authorizationId: Id }),
      body: Type.Object(
        { subject: Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100 }) },
        {
          additionalProperties: false,
          examples: [{ subject: { given_name: 'Ada', family_name: 'Lovelace', pass_number: 'MT-104233' } }],
        },
      ),
      responses: {
        200: {
          description: 'Approved: an offer of the subject is made for the request; send the browser to continueUrl.',
          schema: Type.Object({ authorizationId: Type.String(), offerId: Type.String(), continueUrl: Type.String() }),
        },
        ...OPERATOR_ERRORS,
        400: refusal(['invalid_request', 'invalid_subject'], 'invalid_subject: the subject does not fit the type.'),
        403: refusal(['forbidden', 'tenant_suspended'], 'forbidden: the credential lacks the role or tenant scope.'),
        404: refusal('unknown_tenant'),
        410: refusal('authorization_ended', 'unknown, not waiting for approval, or expired.'),
      },
      handler: async (request) => {
        const { tenant, authorizationId } = request.params;
        return authorizations.approve(tenant, authorizationId, request.body.subject, operatorActor(operatorOf(request)));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/tenants/authorization-flow',
      ...issuerRoute(['issuance']),
      scope: { tenantIn: 'body' },
      stability: 'unpromised',
      summary: 'Turn the authorization code flow (HAIP issuance) on or off for a tenant, and set its holders’ sign-in hook.',
      body: Type.Object(
        {
          tenant: Slug,
          haipIssuance: Type.Optional(Type.Boolean()),
          signInUrl: Type.Optional(
            Type.Union([
              Type.String({
                pattern: '^https://\\S+$',
                maxLength: 2048,
                description: 'https URL of the issuer’s sign-in hook.',
              }),
              Type.Null(),
            ]),
          ),
        },
        {
          additionalProperties: false,
          minProperties: 2,
          examples: [{ tenant: 'acme-transit', haipIssuance: true, signInUrl: 'https://login.acme-transit.example/wallet' }],
        },
      ),
      responses: {
        200: {
          description: 'The tenant’s settings after the change.',
          schema: Type.Object({
            tenant: Type.String(),
            haipIssuance: Type.Boolean(),
            signInUrl: Type.Union([Type.String(), Type.Null()]),
          }),
        },
        ...OPERATOR_ERRORS,
        404: refusal('unknown_tenant'),
      },
      handler: async (request) => {
        const { tenant, ...patch } = request.body;
        const row = await tenants.setAuthorizationFlow(tenant, patch, operatorActor(operatorOf(request)));
        return { tenant: row.slug, haipIssuance: row.haipIssuance, signInUrl: row.signInUrl };
      },
    }),
  ];
}
