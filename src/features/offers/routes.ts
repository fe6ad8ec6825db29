import { Type } from '@sinclair/typebox';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { atEveryIssuer } from '../../http/issuer-routes.ts';
import { defineRoute, issuerRoute, type RouteGroup } from '../../http/route.ts';
import { AccountId, DisplayText, Narrowed, OPERATOR_ERRORS, refusal, Slug } from '../../http/schemas/common.ts';
import type { TxCodeSpec as TxCode } from '../../ports/offer-store.ts';
import { TypeId } from '../credential-types/routes.ts';
import { OFFER_TTL_MAX_S, OFFER_TTL_MIN_S, type OfferRequest, type OfferService } from './offer-service.ts';

const Handle = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' });

const TxCodeOptions = Type.Object(
  {
    length: Type.Optional(Type.Integer({ minimum: 4, maximum: 12 })),
    inputMode: Type.Optional(Type.Union([Type.Literal('numeric'), Type.Literal('text')])),
    description: Type.Optional(DisplayText(300)),
  },
  { additionalProperties: false },
);

const TxCodeSpec = Type.Object({
  input_mode: Narrowed<TxCode['input_mode']>(Type.String()),
  length: Type.Integer(),
  description: Type.Optional(Type.String()),
});

/** A new offer; `txCode` is shown this once, for delivery to the holder out of band (only its hash is kept). */
export const OfferCreated = Type.Object({
  offerUri: Type.String(),
  offerId: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
  txCode: Type.Optional(Type.String()),
  itemId: Type.Optional(Type.String({ description: 'The wallet item, when addressed to an account.' })),
});

/** The Credential Offer object (OID4VCI 1.0 §4.1.1), as an offer's reference serves it. */
export const CredentialOffer = Type.Object({
  credential_issuer: Type.String(),
  credential_configuration_ids: Type.Array(Type.String()),
  grants: Type.Object({
    'urn:ietf:params:oauth:grant-type:pre-authorized_code': Type.Object({
      'pre-authorized_code': Type.String(),
      tx_code: Type.Optional(TxCodeSpec),
    }),
    authorization_code: Type.Optional(
      Type.Object(
        { issuer_state: Type.String() },
        { description: 'Where the issuer’s HAIP issuance is on and the offer has no transaction code (docs/haip.md).' },
      ),
    ),
  }),
});

export function offerRoutes(offers: OfferService): RouteGroup {
  return {
    name: 'offers',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/api/offers',
        aliases: ['/v1/offers'],
        ...issuerRoute(['issuance']),
        scope: { tenantIn: 'body' },
        stability: 'promised',
        summary: 'Offer a credential of a type to a holder: a pre-authorized OID4VCI credential offer (docs/offers.md).',
        body: Type.Object(
          {
            tenant: Slug,
            typeId: TypeId,
            subject: Type.Object({}, { description: 'Claim values that satisfy the type exactly.' }),
            txCode: Type.Optional(Type.Union([Type.Boolean(), TxCodeOptions])),
            byReference: Type.Optional(Type.Boolean({ description: 'Carry a credential_offer_uri instead of the offer.' })),
            expiresIn: Type.Optional(Type.Integer({ minimum: OFFER_TTL_MIN_S, maximum: OFFER_TTL_MAX_S })),
            accountId: Type.Optional({
              ...AccountId,
              description: 'Address the offer to this holder account’s wallet as an item (docs/wallet.md); implies byReference.',
            }),
          },
          {
            additionalProperties: false,
            examples: [
              {
                tenant: 'acme-transit',
                typeId: 'season-pass',
                subject: {
                  given_name: 'Ada',
                  family_name: 'Lovelace',
                  birth_date: '1990-12-10',
                  zone: 'city',
                  valid_until: '2030-12-31',
                },
                txCode: { length: 6, inputMode: 'numeric', description: 'The code in the letter we sent you' },
                expiresIn: 86400,
              },
            ],
          },
        ),
        responses: {
          201: {
            description: 'The offer. txCode, when asked for, is shown this once.',
            schema: OfferCreated,
          },
          ...OPERATOR_ERRORS,
          400: refusal(['invalid_subject', 'reserved_claim', 'invalid_request', 'malformed_json']),
          403: refusal(['forbidden', 'tenant_suspended'], 'forbidden: the credential lacks the role or tenant scope.'),
          404: refusal(['unknown_tenant', 'unknown_type']),
        },
        handler: async (request, reply) => {
          return reply.code(201).send(await offers.create(request.body as OfferRequest, operatorActor(operatorOf(request))));
        },
      }),
      ...atEveryIssuer('/credential-offer/{handle}', (path, tenantOf, tenantParam) =>
        defineRoute({
          method: 'GET',
          path,
          auth: 'public',
          stability: 'unpromised',
          summary: 'A credential offer passed by reference (OID4VCI 1.0 §4.1.3), while its code is unredeemed.',
          params: Type.Object({ handle: Handle, ...tenantParam }),
          responses: {
            200: { description: 'The Credential Offer object.', schema: CredentialOffer },
            404: refusal(['unknown_tenant', 'unknown_offer']),
          },
          handler: async (request, reply) => {
            const params = request.params as Record<string, string>;
            reply.header('cache-control', 'no-store');
            return offers.byReference(tenantOf(params), params.handle ?? '');
          },
        }),
      ),
    ],
  };
}
