import { Type } from '@sinclair/typebox';
import type { ClaimKind } from '../../core/claims/claim-spec.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { atEveryIssuer, PUBLIC_ARTIFACT } from '../../http/issuer-routes.ts';
import { defineRoute, issuerRoute, type RouteGroup } from '../../http/route.ts';
import { DisplayName, Narrowed, OPERATOR_ERRORS, refusal, Slug } from '../../http/schemas/common.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import type { MdocRequest } from './formats.ts';
import { typeMetadata } from './type-metadata.ts';
import type { TypeService } from './type-service.ts';

/** How registering a type is refused, wherever it is offered (POST /api/types, POST /api/admin/types). */
export const REGISTER_TYPE_REFUSALS = {
  400: refusal(['invalid_claim_spec', 'reserved_claim', 'invalid_request', 'malformed_json']),
  404: refusal('unknown_tenant'),
  409: refusal('conflict', 'the tenant already has a type with this typeId.'),
} as const;

export const TypeId = Type.String({
  pattern: '^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$',
  description: 'See docs/credential-types.md.',
});

export const Claim = Type.Object({
  name: Type.String(),
  kind: Narrowed<ClaimKind>(Type.String({ description: 'text, date, number, money, bool, enum, array(text) or array(object).' })),
  /** Every claim of a type is required in the subject (docs/credential-types.md). */
  mandatory: Narrowed<true>(Type.Boolean()),
  options: Type.Optional(Type.Array(Type.String(), { description: 'enum only.' })),
});

/** A registered type as the operations answer it. */
export const TypeBody = Type.Object({
  tenant: Type.String(),
  typeId: Type.String(),
  name: Type.String(),
  vct: Type.String({ description: 'SD-JWT VC type; an URL serving the Type Metadata.' }),
  claims: Type.Array(Claim),
  formats: Type.Optional(Type.Array(Type.String(), { description: 'dc+sd-jwt, mso_mdoc, or both (docs/mdoc.md).' })),
  mdoc: Type.Optional(
    Type.Object({
      doctype: Type.String(),
      elements: Type.Record(Type.String(), Type.Array(Type.String()), {
        description: 'Each claim key: [namespace, elementIdentifier].',
      }),
    }),
  ),
});

const ElementPath = Type.Array(Type.String({ maxLength: 100 }), { minItems: 2, maxItems: 2 });

/** The optional format fields of a registration (docs/mdoc.md, "Types with formats"). */
export const FormatFields = {
  formats: Type.Optional(
    Type.Array(Type.String({ maxLength: 20 }), {
      minItems: 1,
      maxItems: 2,
      description: 'The formats the type is offered in: dc+sd-jwt (the default), mso_mdoc, or both.',
    }),
  ),
  mdoc: Type.Optional(
    Type.Object(
      {
        doctype: Type.Optional(Type.String({ maxLength: 100 })),
        namespace: Type.Optional(Type.String({ maxLength: 100 })),
        elements: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), ElementPath, { maxProperties: 100 })),
      },
      {
        additionalProperties: false,
        description: 'How the type is an ISO mdoc; giving it offers mso_mdoc beside dc+sd-jwt unless formats says otherwise.',
      },
    ),
  ),
};

const TypeMetadata = Type.Object({
  vct: Type.String(),
  name: Type.String(),
  display: Type.Array(Type.Object({ locale: Type.String(), name: Type.String() })),
  claims: Type.Array(
    Type.Object({
      path: Type.Array(Type.Union([Type.String(), Type.Null()])),
      display: Type.Array(Type.Object({ locale: Type.String(), label: Type.String() })),
      mandatory: Type.Boolean(),
      sd: Type.String(),
    }),
  ),
});

/** The tenant manifest (GET /manifest): also the back office's branding preview. */
export const Manifest = Type.Object({
  name: Type.String(),
  did: Type.String(),
  types: Type.Array(
    Type.Object({
      typeId: Type.String(),
      name: Type.String(),
      vct: Type.String(),
      manifest: Type.Object({ claims: Type.Array(Claim) }),
    }),
  ),
});

/** Attack-potential values (OID4VCI 1.0 Appendix D.2, such as iso_18045_high, or an ecosystem's URL). */
const AttackPotentials = Type.Array(Type.String({ pattern: '^[\\x21-\\x7e]{1,200}$' }), {
  minItems: 1,
  maxItems: 8,
  uniqueItems: true,
});

const KeyAttestationRequired = Type.Union([
  Type.Object(
    {
      keyStorage: Type.Optional(AttackPotentials),
      userAuthentication: Type.Optional(AttackPotentials),
    },
    {
      additionalProperties: false,
      description:
        'The values accepted for the key storage and user authentication of the attested keys (a key attestation must name at least one of each list given); {} accepts any.',
    },
  ),
  Type.Null(),
]);

export function credentialTypeRoutes(types: TypeService, tenants: TenantService, urls: IssuerUrls): RouteGroup {
  const metadataRoutes = atEveryIssuer('/types/{typeId}', (path, tenantOf, tenantParam) =>
    defineRoute({
      ...PUBLIC_ARTIFACT,
      path,
      summary: 'SD-JWT VC Type Metadata of a credential type; the vct URL resolves here.',
      params: Type.Object({ typeId: TypeId, ...tenantParam }),
      responses: {
        200: { description: 'Type Metadata.', schema: TypeMetadata },
        404: refusal(['unknown_tenant', 'unknown_type']),
      },
      handler: async (request) => {
        const params = request.params as Record<string, string>;
        const tenant = (await tenants.get(tenantOf(params))).slug;
        const type = await types.get(tenant, params.typeId ?? '');
        return typeMetadata(urls.vct(tenant, type.typeId), type);
      },
    }),
  );

  return {
    name: 'credential-types',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/api/types',
        aliases: ['/v1/types'],
        ...issuerRoute(['issuance']),
        scope: { tenantIn: 'body' },
        stability: 'promised',
        // Interface, Credential type 7: "The body returned by registration: not shown". The answer
        // stays (a wallet and the console read typeId and vct from it), but is not promised.
        undocumented:
          'The interface leaves the body returned by registration unpublished; docs/credential-types.md states the answer openrail gives today, which is not promised.',
        summary: 'Register a credential type from claim specifications (docs/credential-types.md).',
        body: Type.Object(
          {
            tenant: Slug,
            name: DisplayName(100),
            claims: Type.Array(Type.String({ maxLength: 2048 })),
            ...FormatFields,
          },
          {
            additionalProperties: false,
            examples: [
              {
                tenant: 'acme-transit',
                name: 'Season Pass',
                claims: ['given_name', 'family_name', 'birth_date:date', 'zone:enum(city|region|national)', 'valid_until:date'],
              },
            ],
          },
        ),
        responses: {
          201: { description: 'The registered type.', schema: TypeBody },
          ...OPERATOR_ERRORS,
          ...REGISTER_TYPE_REFUSALS,
        },
        handler: async (request, reply) => {
          const { tenant, name, claims, formats, mdoc } = request.body;
          const actor = operatorActor(operatorOf(request));
          return reply.code(201).send(await types.register(tenant, name, claims, actor, { formats, mdoc: mdoc as MdocRequest }));
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/api/types/key-attestation',
        ...issuerRoute(['issuance']),
        scope: { tenantIn: 'body' },
        stability: 'unpromised',
        summary:
          'Require (or with null stop requiring) a wallet provider’s key attestation in every key proof of a credential type (docs/haip.md, "Key attestation").',
        body: Type.Object(
          { tenant: Slug, typeId: TypeId, required: KeyAttestationRequired },
          {
            additionalProperties: false,
            examples: [{ tenant: 'acme-transit', typeId: 'season-pass', required: { keyStorage: ['iso_18045_high'] } }],
          },
        ),
        responses: {
          200: {
            description: 'The type’s requirement after the change, and the one it replaced.',
            schema: Type.Object({
              tenant: Type.String(),
              typeId: Type.String(),
              required: KeyAttestationRequired,
              previous: KeyAttestationRequired,
            }),
          },
          ...OPERATOR_ERRORS,
          404: refusal(['unknown_tenant', 'unknown_type']),
          409: refusal(
            'wallet_trust_unconfigured',
            'this deployment trusts no wallet provider, so it could check no key attestation.',
          ),
        },
        handler: async (request) => {
          const { tenant, typeId, required } = request.body;
          const previous = await types.setKeyAttestation(tenant, typeId, required, operatorActor(operatorOf(request)));
          return { tenant, typeId, required, previous };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/manifest',
        auth: 'public',
        stability: 'unpromised',
        cors: true,
        summary: "A tenant's manifest for wallet white-labelling: ?tenant=<slug>, the platform (root) without it.",
        querystring: Type.Object({ tenant: Type.Optional(Slug) }, { additionalProperties: false }),
        responses: { 200: { description: 'The manifest.', schema: Manifest }, 404: refusal('unknown_tenant') },
        handler: async (request) => types.manifest(request.query.tenant ?? ROOT_SLUG),
      }),
      ...metadataRoutes,
    ],
  };
}
