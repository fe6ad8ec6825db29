/**
 * The demo page's three calls (docs/public-pages.md, "The demo"): a demonstration offer, whether
 * a wallet collected it, and its revocation. Public; the offer and the revocation write, and both
 * spend the `demo-offer` budget. The presentation step uses hosted verification (POST /verify/request).
 */
import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { refusal } from '../../http/schemas/common.ts';
import type { DemoTryIt } from './demo-try-it.ts';

/** Whether a wallet collected a demonstration offer, or no wallet took it in time. */
export const Progress = Type.Object({ collected: Type.Boolean(), expired: Type.Boolean() });

/** A demonstration offer, and the demo token that follows it. */
export const OfferCreated = Type.Object({
  offerId: Type.String(),
  offerUri: Type.String({
    description: 'openid-credential-offer:// by reference: for the QR code, a wallet link or `openrail wallet collect`.',
  }),
  expiresAt: Type.String({ format: 'date-time' }),
  demoToken: Type.String({
    description: 'Proves this caller made the offer, to /demo/progress and /demo/revoke. Keep it out of URLs.',
  }),
  vct: Type.String({ description: 'The type a relying party asks for in the presentation step.' }),
  askClaims: Type.Array(Type.String(), { description: 'The claims the page asks the wallet to present.' }),
});

const Ownership = Type.Object(
  {
    offerId: Type.String({ minLength: 1, maxLength: 100 }),
    demoToken: Type.String({ minLength: 1, maxLength: 100 }),
  },
  {
    additionalProperties: false,
    examples: [{ offerId: 'off_Qm3v9ZcX2bLrT8wYk1PaHg', demoToken: 'the demoToken POST /demo/offer answered' }],
  },
);

const UNKNOWN = refusal('unknown_demo', 'no demonstration offer has this id and demo token.');

export function demoRoutes(demo: DemoTryIt): RouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/demo/offer',
      auth: 'public',
      budget: 'demo-offer',
      stability: 'unpromised',
      summary: 'A demonstration offer of the demo tenant’s Transit Pass, for the /demo page; no transaction code.',
      responses: {
        201: { description: 'The offer, and the demo token that follows it.', schema: OfferCreated },
        403: refusal('tenant_suspended', 'the demonstration tenant is suspended.'),
        404: refusal('demo_unavailable', 'this deployment runs no demonstration tenant.'),
      },
      handler: async (_request, reply) => reply.code(201).send(await demo.offer()),
    }),
    defineRoute({
      method: 'POST',
      path: '/demo/progress',
      auth: 'public',
      stability: 'unpromised',
      summary: 'Whether a wallet has collected a demonstration offer yet.',
      body: Ownership,
      responses: {
        200: {
          description: '`collected` once a wallet holds the credential; `expired` when no wallet took it in time.',
          schema: Progress,
        },
        404: UNKNOWN,
      },
      handler: async (request) => {
        const { offerId, demoToken } = request.body as { offerId: string; demoToken: string };
        return demo.progress(offerId, demoToken);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/demo/revoke',
      auth: 'public',
      budget: 'demo-offer',
      stability: 'unpromised',
      summary: 'Revokes what a wallet collected from a demonstration offer; repeating it changes nothing.',
      body: Ownership,
      responses: {
        200: {
          description: 'How many credentials the offer led to, now all revoked.',
          schema: Type.Object({ revoked: Type.Integer() }),
        },
        404: UNKNOWN,
        409: refusal('not_collected', 'no wallet has collected it yet.'),
      },
      handler: async (request) => {
        const { offerId, demoToken } = request.body as { offerId: string; demoToken: string };
        return demo.revoke(offerId, demoToken);
      },
    }),
  ];
}
