import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { refusal } from '../../http/schemas/common.ts';
import { qrSvg } from '../../web/qr-code.ts';

/** Long enough for an openid4vp:// or openid-credential-offer:// URI, short enough for a phone camera. */
const MAX_QR_TEXT = 2048;

/** GET /api/qr: renders a string as an SVG QR code (public; no state, nothing stored). */
export function qrRoutes(): RouteGroup {
  return {
    name: 'qr',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/api/qr',
        auth: 'public',
        stability: 'unpromised',
        internal: true,
        summary: 'An SVG QR code of the text in ?data= (error correction M).',
        querystring: Type.Object(
          { data: Type.String({ minLength: 1, maxLength: MAX_QR_TEXT }) },
          { additionalProperties: false },
        ),
        responses: {
          200: { description: 'The QR code.', contentType: 'image/svg+xml' },
          400: refusal('invalid_request', 'data is missing, empty or longer than 2048 characters.'),
        },
        handler: async (request, reply) => {
          const svg = await qrSvg(request.query.data);
          // The SVG is built from the text as modules only; no script, but say so to browsers too.
          return (
            reply
              .type('image/svg+xml')
              .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
              // The text may be an offer URI holding its pre-authorized code: never kept by a cache.
              .header('cache-control', 'no-store')
              .send(svg)
          );
        },
      }),
    ],
  };
}
