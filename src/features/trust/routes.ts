import { Type } from '@sinclair/typebox';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { renderSecurityTxt } from '../../core/security-txt.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import { PUBLIC_ARTIFACT } from '../../http/issuer-routes.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { Narrowed, refusal, Slug } from '../../http/schemas/common.ts';
import type { KeyCertifier } from '../../ports/key-certifier.ts';
import type { KeyStore } from '../../ports/key-store.ts';
import type { ShippedBuild } from '../../ports/shipped-build.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import { buildReport } from './build-provenance.ts';
import type { ReadinessProbe } from './readiness.ts';

const Jwk = Type.Object({ kty: Type.String(), crv: Type.String(), x: Type.String(), y: Type.String() });
const DidDoc = Type.Object({
  '@context': Type.Array(Type.String()),
  id: Type.String(),
  verificationMethod: Type.Array(
    Type.Object({ id: Type.String(), type: Type.String(), controller: Type.String(), publicKeyJwk: Jwk }),
  ),
  assertionMethod: Type.Array(Type.String()),
  authentication: Type.Optional(Type.Array(Type.String())),
});

const Part = { ok: Type.Boolean(), required: Type.Boolean() };
/** GET /readyz's answer: each part's state, the signing probe's with its counters. */
export const Readiness = Type.Object({
  status: Narrowed<'ready' | 'not_ready'>(Type.String({ description: 'ready or not_ready' })),
  readiness: Type.Object({
    db: Type.Object(Part),
    signing: Type.Object({
      ...Part,
      state: Narrowed<'ok' | 'failed'>(Type.String()),
      latencyMs: Type.Number(),
      attempts: Type.Integer(),
      failures: Type.Integer(),
    }),
    issuerIdentity: Type.Object(Part),
    verifierIdentity: Type.Object(Part),
  }),
});

/** GET /build's answer: what was recorded at install time against what is on disk now. */
export const Build = Type.Object({
  commit: Type.String(),
  sourceDigest: Type.String(),
  observedSourceDigest: Type.String(),
  matches: Type.Boolean(),
  divergence: Type.Object({ missing: Type.Integer(), changed: Type.Integer(), extra: Type.Integer() }),
  attestation: Type.Object({ available: Type.Boolean(), reason: Type.String() }),
});

export interface TrustDeps {
  tenants: TenantService;
  keys: KeyStore;
  /** The trust anchors of the signing keys' certificates, read per request (a root can be replaced). */
  certifier: Pick<KeyCertifier, 'anchorPem'>;
  readiness: ReadinessProbe;
  clock: Clock;
  /** The package as installed: GET /build compares its record with its files. */
  shipped: ShippedBuild;
  publicUrl: URL;
  security: { contacts: string[]; expires?: Date; policy?: string };
  /** The contract document of the mounted routes, built once at start. */
  openApi: () => Record<string, unknown>;
}

/** Days the default security.txt Expires lies ahead when OPENRAIL_SECURITY_EXPIRES is unset. */
const SECURITY_TXT_DEFAULT_DAYS = 180;

export function trustRoutes(deps: TrustDeps): RouteGroup {
  return {
    name: 'trust',
    routes: [
      defineRoute({
        ...PUBLIC_ARTIFACT,
        path: '/.well-known/did.json',
        summary: "The platform's DID document (did:web:<host>): the root issuer key and the verifier identity key.",
        responses: { 200: { description: 'DID document.', schema: DidDoc } },
        handler: async () => deps.tenants.didDocument(ROOT_SLUG),
      }),
      defineRoute({
        ...PUBLIC_ARTIFACT,
        path: '/t/{tenant}/did.json',
        summary: "A tenant's DID document (did:web:<host>:t:<slug>).",
        params: Type.Object({ tenant: Slug }),
        responses: {
          200: { description: 'DID document.', schema: DidDoc },
          404: refusal('unknown_tenant', 'the root tenant is published at /.well-known/did.json.'),
        },
        handler: async (request) => {
          const slug = request.params.tenant;
          if (slug === ROOT_SLUG)
            throw new ServiceError('unknown_tenant', 'The root tenant is the platform: see /.well-known/did.json.');
          const tenant = await deps.tenants.get(slug);
          return deps.tenants.didDocument(tenant.slug);
        },
      }),
      defineRoute({
        ...PUBLIC_ARTIFACT,
        path: '/.well-known/openrail-ca.pem',
        summary:
          'The trust anchors of every signing key’s certificate (the x5c headers of credentials, status list tokens and signed requests), as PEM certificates: the one in force first, then a root announced to take over, then replaced ones still anchoring certificates (docs/keys.md).',
        responses: { 200: { description: 'The anchor certificates.', contentType: 'application/pem-certificate-chain' } },
        handler: async (_request, reply) => reply.type('application/pem-certificate-chain').send(deps.certifier.anchorPem),
      }),
      defineRoute({
        method: 'GET',
        path: '/.well-known/security.txt',
        auth: 'public',
        stability: 'unpromised',
        summary: 'RFC 9116 security contact.',
        responses: { 200: { description: 'security.txt', contentType: 'text/plain; charset=utf-8' } },
        handler: async (_request, reply) => {
          const expires = deps.security.expires ?? new Date(deps.clock.now() + SECURITY_TXT_DEFAULT_DAYS * 24 * 3600 * 1000);
          const body = renderSecurityTxt({
            contacts: deps.security.contacts,
            expires,
            canonical: new URL('/.well-known/security.txt', deps.publicUrl).toString(),
            preferredLanguages: 'en',
            ...(deps.security.policy ? { policy: deps.security.policy } : {}),
          });
          return reply.type('text/plain; charset=utf-8').send(body);
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/build',
        auth: 'public',
        stability: 'unpromised',
        summary: 'Provenance of the running instance: recorded and observed source digests.',
        responses: { 200: { description: 'Build provenance.', schema: Build } },
        handler: async () => buildReport(deps.shipped),
      }),
      defineRoute({
        method: 'GET',
        path: '/readyz',
        auth: 'public',
        stability: 'unpromised',
        summary: 'Readiness: 200 when every required part is ready, 503 otherwise.',
        responses: {
          200: { description: 'Ready.', schema: Readiness },
          503: { description: 'A required part is not ready.', schema: Readiness },
        },
        handler: async (_request, reply) => {
          const report = await deps.readiness.check();
          return reply.code(report.status === 'ready' ? 200 : 503).send(report);
        },
      }),
      defineRoute({
        ...PUBLIC_ARTIFACT,
        path: '/openapi.json',
        summary: 'The OpenAPI 3.1 contract of the operations this deployment mounts.',
        responses: { 200: { description: 'OpenAPI 3.1.0 document.', contentType: 'application/json' } },
        handler: async (_request, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(deps.openApi())),
      }),
    ],
  };
}
