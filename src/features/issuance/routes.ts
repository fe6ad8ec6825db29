import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { servesCodeFlow } from '../../core/code-flow.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { accessTokenOf } from '../../http/auth/access-token.ts';
import { atEveryIssuer, issuerParams, OAUTH_ENDPOINT, PUBLIC_ARTIFACT } from '../../http/issuer-routes.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { oauthError } from '../../http/schemas/common.ts';
import type { TypeService } from '../credential-types/type-service.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import type { AuthorizationService } from './authorization-service.ts';
import type { CredentialIssuer } from './issue-credential.ts';
import { authorizationServerMetadata, issuerMetadata } from './metadata.ts';
import type { OauthChecks } from './oauth-checks.ts';
import type { TokenService } from './token-service.ts';

const Json = Type.Record(Type.String(), Type.Unknown());

export interface IssuanceDeps {
  tenants: TenantService;
  types: Pick<TypeService, 'list' | 'keyAttestations'>;
  urls: IssuerUrls;
  tokens: TokenService;
  issuer: CredentialIssuer;
  authorizations: AuthorizationService;
  checks: OauthChecks;
}

/*
 * A suspended issuer (docs/backoffice/orgs.md, "Suspension") in the codes of the two endpoints:
 * its pre-authorized and authorization codes are invalid grants (RFC 6749 §5.2; token-service.ts,
 * code-redemption.ts), its credential requests denied (OID4VCI 1.0 §8.3.1.2; issue-credential.ts).
 * The status is read on every request (with the offer or the authorization request, on the hot
 * paths), so a suspension made by another process holds on the next one.
 */

/** RFC 6749 §5.1 and OID4VCI §7: token and nonce answers are never cached. */
const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store').header('pragma', 'no-cache');

/**
 * OID4VCI 1.0 for the platform issuer (at the base) and every tenant (at /t/{tenant}); each is
 * its own authorization server for the pre-authorized code grant (docs/issuance.md).
 */
export function issuanceRoutes(deps: IssuanceDeps): RouteGroup {
  const { tenants, types, urls, tokens, issuer, authorizations, checks } = deps;

  return {
    name: 'issuance',
    routes: [
      ...atEveryIssuer(
        '/.well-known/openid-credential-issuer',
        (path, tenantOf, tenantParam) =>
          defineRoute({
            ...PUBLIC_ARTIFACT,
            path,
            params: issuerParams(tenantParam),
            summary: 'OID4VCI 1.0 Credential Issuer Metadata (§12.2), at the 1.0 and the older location.',
            responses: { 200: { description: 'Issuer metadata.', schema: Json } },
            handler: async (request) => {
              const tenant = await tenants.get(tenantOf(request.params));
              const [list, attestations] = await Promise.all([types.list(tenant.slug), types.keyAttestations(tenant.slug)]);
              return issuerMetadata(urls, tenant, list, attestations);
            },
          }),
        // OID4VCI 1.0 §12.2.2 inserts the well-known between host and path; drafts up to 15 (and
        // the interface) append it.
        ['/.well-known/openid-credential-issuer/t/{tenant}', '/t/{tenant}/.well-known/openid-credential-issuer'],
      ),
      ...atEveryIssuer(
        '/.well-known/oauth-authorization-server',
        (path, tenantOf, tenantParam) =>
          defineRoute({
            ...PUBLIC_ARTIFACT,
            path,
            params: issuerParams(tenantParam),
            summary: 'RFC 8414 authorization server metadata of the issuer.',
            responses: { 200: { description: 'Authorization server metadata.', schema: Json } },
            handler: async (request) => {
              const tenant = await tenants.get(tenantOf(request.params));
              return authorizationServerMetadata(urls, tenant, servesCodeFlow(tenant, checks));
            },
          }),
        // RFC 8414 §3.1 inserts it as well; the appended form serves older wallets.
        ['/.well-known/oauth-authorization-server/t/{tenant}', '/t/{tenant}/.well-known/oauth-authorization-server'],
      ),
      ...atEveryIssuer('/token', (path, tenantOf, tenantParam) =>
        defineRoute({
          ...OAUTH_ENDPOINT,
          path,
          params: issuerParams(tenantParam),
          accepts: 'form',
          summary:
            'Token endpoint: redeem a pre-authorized code (OID4VCI 1.0 §6), or an authorization code with PKCE, DPoP and the wallet attestation (HAIP 1.0).',
          body: Type.Record(Type.String(), Type.String(), {
            examples: [
              {
                grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
                'pre-authorized_code': 'pac_PRE-AUTHORIZED-CODE-FROM-THE-OFFER',
                tx_code: '493536',
              },
            ],
          }),
          responses: {
            200: {
              description: 'A single-use access token and a c_nonce.',
              schema: Type.Object({
                access_token: Type.String(),
                token_type: Type.String(),
                expires_in: Type.Integer(),
                c_nonce: Type.String(),
                c_nonce_expires_in: Type.Integer(),
              }),
            },
            400: oauthError(
              'invalid_request, invalid_grant (also: the issuer is suspended), unsupported_grant_type, invalid_dpop_proof, or use_dpop_nonce (retry with the DPoP-Nonce header’s nonce).',
            ),
            401: oauthError(
              'invalid_client: the authorization code grant’s wallet attestation is missing, invalid or another wallet’s.',
            ),
            404: oauthError('unknown_tenant'),
            415: oauthError('unsupported_media_type: the body is not a form.'),
          },
          handler: async (request, reply) => {
            const tenant = tenantOf(request.params);
            const form = (request.body ?? {}) as Record<string, string>;
            const seen = { method: request.method, url: `${urls.issuer(tenant)}/token`, headers: request.headers };
            const dpop = () => checks.checkDpop(tenant, seen, { required: false, nonce: true });
            if (form.grant_type === 'authorization_code') {
              // The issuer is read with the request of the code, in one round trip; its HAIP issuance off, the grant is refused below.
              const answer = await authorizations.redeem(tenant, form, seen);
              if (answer) return noStore(reply).send(answer);
            }
            // The pre-authorized code grant reads the issuer with the offer, in one round trip.
            return noStore(reply).send(await tokens.redeem(tenant, form, dpop));
          },
        }),
      ),
      ...atEveryIssuer('/nonce', (path, tenantOf, tenantParam) =>
        defineRoute({
          ...OAUTH_ENDPOINT,
          path,
          params: issuerParams(tenantParam),
          summary: 'Nonce endpoint: a fresh c_nonce for key proofs (OID4VCI 1.0 §7).',
          responses: {
            200: { description: 'A fresh c_nonce.', schema: Type.Object({ c_nonce: Type.String() }) },
            404: oauthError('unknown_tenant'),
          },
          handler: async (request, reply) => {
            const tenant = await tenants.existing(tenantOf(request.params));
            return noStore(reply).send({ c_nonce: tokens.nonce(tenant) });
          },
        }),
      ),
      ...atEveryIssuer('/credential', (path, tenantOf, tenantParam) =>
        defineRoute({
          path,
          params: issuerParams(tenantParam),
          method: 'POST',
          auth: 'access-token',
          stability: 'unpromised',
          surface: 'oauth',
          malformedBodyCode: 'invalid_credential_request',
          summary: 'Credential endpoint: holder-bound SD-JWT VCs for the proofs (OID4VCI 1.0 §8).',
          body: Type.Unknown({
            examples: [
              {
                credential_configuration_id: 'season-pass',
                proofs: { jwt: ['KEY-PROOF-JWT.SIGNED-BY-THE-HOLDER-KEY.OVER-THE-C-NONCE'] },
              },
            ],
          }),
          responses: {
            200: {
              description: 'One credential per proof.',
              schema: Type.Object({ credentials: Type.Array(Type.Object({ credential: Type.String() })) }),
            },
            400: oauthError(
              'invalid_credential_request, unknown_credential_configuration, unknown_credential_identifier, invalid_proof, invalid_nonce, invalid_encryption_parameters, or credential_request_denied (the issuer is suspended).',
            ),
            401: oauthError(
              'invalid_token (RFC 6750): the access token is missing, unknown, spent, expired or in the query; for a DPoP-bound token (RFC 9449 §7), invalid_dpop_proof or use_dpop_nonce (with DPoP-Nonce).',
            ),
            404: oauthError('unknown_tenant'),
          },
          handler: async (request, reply) => {
            // The issuer's status is read with the token's offer, in one round trip (issue-credential.ts).
            const credentials = await issuer.issue(tenantOf(request.params), accessTokenOf(request).token, request.body);
            return noStore(reply).send({ credentials: credentials.map((credential) => ({ credential })) });
          },
        }),
      ),
    ],
  };
}
