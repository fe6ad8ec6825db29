import { Type } from '@sinclair/typebox';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { defineRoute, issuerRoute, type RouteGroup } from '../../http/route.ts';
import { DisplayName, DisplayText, OPERATOR_ERRORS, refusal, Slug } from '../../http/schemas/common.ts';
import type { TenantProfile, TenantRecord } from '../../ports/tenant-store.ts';
import type { TenantService } from './tenant-service.ts';

export const Tenant = Type.Object({
  slug: Type.String({ description: 'URL-safe identifier (docs/tenants.md).' }),
  name: Type.String(),
  did: Type.String({ description: 'did:web:<host>:t:<slug>' }),
});

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);
const Color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'sRGB colour as #RRGGBB.' });

/** The profile's fields as a request sets them (also the back office's organisation bodies). */
export const ProfileFields = {
  displayName: Nullable(DisplayName(100)),
  description: Nullable(DisplayText(500)),
  logoUri: Nullable(Type.String({ pattern: '^https://\\S+$', maxLength: 2048, description: 'https URL of the logo image.' })),
  primaryColor: Nullable(Color),
  backgroundColor: Nullable(Color),
  textColor: Nullable(Color),
};

/** A tenant's profile as operations answer it (docs/tenants.md). */
export const ProfileView = Type.Object({
  displayName: Nullable(Type.String()),
  description: Nullable(Type.String()),
  logoUri: Nullable(Type.String()),
  primaryColor: Nullable(Type.String()),
  backgroundColor: Nullable(Type.String()),
  textColor: Nullable(Type.String()),
});

const TenantWithProfile = Type.Object({ ...Tenant.properties, profile: ProfileView });

function profileOf(t: TenantRecord): TenantProfile {
  const { displayName, description, logoUri, primaryColor, backgroundColor, textColor } = t;
  return { displayName, description, logoUri, primaryColor, backgroundColor, textColor };
}

export function tenantRoutes(tenants: TenantService): RouteGroup {
  return {
    name: 'tenants',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/api/tenants',
        aliases: ['/v1/tenants'],
        ...issuerRoute(),
        scope: 'platform',
        stability: 'promised',
        summary: 'Create a tenant with its own signing key and did:web identity.',
        body: Type.Object({ name: DisplayName(100) }, { additionalProperties: false, examples: [{ name: 'Acme Transit' }] }),
        responses: {
          201: { description: 'The tenant was created.', schema: Tenant },
          ...OPERATOR_ERRORS,
          409: refusal('conflict', 'no free slug could be found for this name.'),
        },
        handler: async (request, reply) => {
          const tenant = await tenants.create(request.body.name, operatorActor(operatorOf(request)));
          return reply.code(201).send(tenant);
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/api/tenants/update',
        ...issuerRoute(['issuance']),
        scope: { tenantIn: 'body' },
        stability: 'unpromised',
        summary: "Change a tenant's profile and branding; null clears a field, an absent field is kept.",
        body: Type.Object(
          { tenant: Slug, ...Object.fromEntries(Object.entries(ProfileFields).map(([k, v]) => [k, Type.Optional(v)])) },
          {
            additionalProperties: false,
            minProperties: 2,
            examples: [
              {
                tenant: 'acme-transit',
                displayName: 'Acme Transit',
                description: 'Buses and trams of the Acme region.',
                logoUri: 'https://acme-transit.example/logo.png',
                primaryColor: '#0B5FA5',
                backgroundColor: '#FFFFFF',
                textColor: null,
              },
            ],
          },
        ),
        responses: {
          200: { description: 'The tenant with its profile after the change.', schema: TenantWithProfile },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_tenant'),
        },
        handler: async (request) => {
          const { tenant: slug, ...patch } = request.body as { tenant: string } & Partial<TenantProfile>;
          const updated = await tenants.updateProfile(slug, patch, operatorActor(operatorOf(request)));
          return { ...tenants.view(updated), profile: profileOf(updated) };
        },
      }),
    ],
  };
}
