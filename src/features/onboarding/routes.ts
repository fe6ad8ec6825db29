import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { refusal } from '../../http/schemas/common.ts';
import type { OnboardingService } from './onboarding-service.ts';

const UNDOCUMENTED = 'The interface does not show onboarding’s bodies; docs/onboarding.md states ours.';
const Identifier = Type.String({ minLength: 3, maxLength: 254, description: 'An e-mail address.' });

/** Holder onboarding (docs/onboarding.md): prove an e-mail address with a mailed code. Public. */
export function onboardingRoutes(onboarding: OnboardingService): RouteGroup {
  return {
    name: 'onboarding',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/onboard/start',
        auth: 'public',
        spends: ['onboard-start'],
        stability: 'unpromised',
        undocumented: UNDOCUMENTED,
        summary: 'Mail a six-digit code to an e-mail address; the same answer whether or not the address is known.',
        body: Type.Object({ identifier: Identifier }, { additionalProperties: false }),
        responses: {
          202: {
            description: 'A code was mailed.',
            schema: Type.Object({ sent: Type.Literal(true), expiresIn: Type.Integer() }),
          },
          400: refusal(['invalid_request', 'malformed_json', 'invalid_contact']),
          429: refusal('rate_limited', 'too many codes for this address or from this caller'),
          503: refusal('mail_unavailable'),
        },
        handler: async (request, reply) => {
          const { body, headers } = await onboarding.start(request.body.identifier, request.ip);
          return reply.code(202).headers(headers).send(body);
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/onboard/verify',
        auth: 'public',
        // The holder proof in the body is admitted as a holder request is: its replay mark is budgeted.
        spends: ['holder-request'],
        stability: 'unpromised',
        undocumented: UNDOCUMENTED,
        summary: 'Prove the code with a holder proof; answers an ownership attestation signed by the platform DID.',
        body: Type.Object(
          {
            identifier: Identifier,
            code: Type.String({ pattern: '^[0-9]{6}$' }),
            proof: Type.String({
              minLength: 1,
              maxLength: 4096,
              description: 'A holder JWS whose aud is <origin>/onboard/verify.',
            }),
          },
          { additionalProperties: false },
        ),
        responses: {
          200: {
            description: 'The attestation.',
            schema: Type.Object({
              attestation: Type.String(),
              accountId: Type.String(),
              identifierHash: Type.String(),
              expiresAt: Type.String({ format: 'date-time' }),
            }),
          },
          400: refusal(['invalid_request', 'malformed_json', 'invalid_contact', 'invalid_code', 'invalid_proof']),
        },
        handler: async (request) => onboarding.verify(request.body, request.ip),
      }),
    ],
  };
}
