import { Type } from '@sinclair/typebox';
import { DISPLAY_TEXT_PATTERN } from '../../core/display-text.ts';
import { idPattern } from '../../core/ids.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { requiredResultTokenOf, resultTokenOf } from '../../http/auth/result-token.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { OPERATOR_ERRORS, oauthError, refusal } from '../../http/schemas/common.ts';
import { VERIFICATION_PROFILES } from '../../ports/presentation-transaction-store.ts';
import { DID_WEB } from '../issuer-trust/did-web-resolver.ts';
import { MAX_RESPONSE_JWE, WEB_ORIGIN } from './haip-profile.ts';
import type { HostedVerifier, RequestInput } from './hosted-verifier.ts';
import { POLL_REASONS } from './result-poll.ts';
import { REQUEST_OBJECT_TYP } from './verifier-requests.ts';

const TransactionId = Type.String({ pattern: idPattern('transaction') });

const RequestBody = Type.Object(
  {
    vct: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'A vct from GET /verify/catalog, or with `issuer`, a vct that trusted issuer issues.',
    }),
    issuer: Type.Optional(
      Type.String({
        maxLength: 300,
        pattern: DID_WEB.source,
        description: 'A did:web issuer of the trust registry, beyond this deployment’s own (docs/operations.md).',
      }),
    ),
    claims: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      maxItems: 64,
      description: 'Claim names to ask the holder to disclose.',
    }),
    nonce: Type.String({
      pattern: '^[A-Za-z0-9._~-]{16,256}$',
      description: "The caller's fresh nonce; it becomes the OID4VP request nonce the holder signs.",
    }),
    aud: Type.String({
      minLength: 1,
      maxLength: 256,
      pattern: DISPLAY_TEXT_PATTERN,
      description:
        "The caller's own audience for this request, bound to the transaction and answered back as the outcome's presentedAud; never shown to the holder, whose key binding names this service's verifier.",
    }),
    origin: Type.Optional(
      Type.String({
        maxLength: 300,
        pattern: WEB_ORIGIN.source,
        description:
          'The web origin (scheme, host, port) of the page that will ask the browser’s Digital Credentials API, such as https://shop.example; the answer then carries dcApi (docs/dc-api.md).',
      }),
    ),
    redirectUri: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          'Your page a wallet on the same device returns the browser to, an https URL without a fragment: the wallet is answered {redirect_uri: <it>#response_code=<code>} and the outcome is then released with that code in Response-Code (docs/verification.md, "A wallet on the same device").',
      }),
    ),
    format: Type.Optional(
      Type.Union([Type.Literal('dc+sd-jwt'), Type.Literal('mso_mdoc')], {
        default: 'dc+sd-jwt',
        description:
          'dc+sd-jwt (default): ask for the type as an SD-JWT VC. mso_mdoc: ask for it as an ISO mdoc, for a type of this deployment the catalog lists with that format (docs/mdoc.md).',
      }),
    ),
    profile: Type.Optional(
      Type.Union(
        VERIFICATION_PROFILES.map((p) => Type.Literal(p)),
        {
          default: 'openid4vp',
          description:
            'openid4vp (default): the request names the verifier by DID and the wallet answers in the clear (direct_post). haip: HAIP 1.0, the verifier named by its certificate (x509_hash) and the answer encrypted to a key of this transaction’s own (direct_post.jwt); docs/haip.md.',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        vct: 'https://rail.example.org/t/acme-transit/types/season-pass',
        claims: ['given_name', 'zone', 'valid_until'],
        nonce: 'gate-12-7f3a9c2e51d84b06',
        aud: 'https://tickets.acme-transit.example',
      },
    ],
  },
);

const RequestCreated = Type.Object({
  requestUri: Type.String({
    description: 'openid4vp:// URI (haip:// under the haip profile) for a QR code; it never carries the result token.',
  }),
  transactionId: Type.String(),
  resultToken: Type.String({ description: 'Bearer secret for GET /verify/result/{transactionId}; shown once.' }),
  expiresAt: Type.String({ format: 'date-time' }),
  dcApi: Type.Optional(
    Type.Object(
      {
        requests: Type.Array(Type.Object({ protocol: Type.String(), data: Type.Record(Type.String(), Type.Unknown()) })),
      },
      { description: 'With origin: what the page passes to navigator.credentials.get({digital: {requests}}) (docs/dc-api.md).' },
    ),
  ),
});

/** The `data` of the DigitalCredential the browser answers (OID4VP 1.0 Appendix A.4), relayed as it came. */
const DcApiAnswer = Type.Object(
  {
    protocol: Type.String({ maxLength: 64, description: 'The protocol of the request the wallet answered.' }),
    data: Type.Object(
      {
        response: Type.Optional(Type.String({ maxLength: MAX_RESPONSE_JWE, description: 'dc_api.jwt: the encrypted answer.' })),
        error: Type.Optional(Type.String({ maxLength: 200 })),
        error_description: Type.Optional(Type.String({ maxLength: 2000 })),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        protocol: 'openid4vp-v1-signed',
        data: { response: 'eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTEyOEdDTSIsImtpZCI6InZ0eF8uLi4ifQ..' },
      },
    ],
  },
);

const Outcome = Type.Union([
  Type.Null(),
  Type.Object({
    ok: Type.Literal(true),
    presentation: Type.Object({
      claims: Type.Record(Type.String(), Type.Unknown()),
      vct: Type.String(),
      issuer: Type.String(),
      format: Type.Optional(
        Type.Literal('mso_mdoc', { description: 'Present when the presentation was an ISO mdoc (docs/mdoc.md).' }),
      ),
      doctype: Type.Optional(Type.String({ description: 'The mdoc’s doctype, with format mso_mdoc.' })),
    }),
    presentedNonce: Type.String({
      description: 'The nonce of POST /verify/request, which the holder’s key binding signed: compare it with yours.',
    }),
    presentedAud: Type.String({
      description: 'The aud of POST /verify/request, bound to this transaction: compare it with yours.',
    }),
  }),
  Type.Object({ ok: Type.Literal(false), error: Type.String(), link: Type.String(), detail: Type.String() }),
]);

const PollBody = Type.Object({
  outcome: Outcome,
  reason: Type.Optional(
    Type.Union(
      POLL_REASONS.map((r) => Type.Literal(r)),
      {
        description:
          'Present exactly when outcome is null, and says why: pending (poll again), result_token_required (no Authorization: Bearer), wrong_result_token (not this transaction’s resultToken), unknown_transaction (never made, expired or evicted), response_code_required or wrong_response_code (a wallet on the same device answered: send the Response-Code its browser brought back). Only pending can still turn into an outcome with the same request.',
      },
    ),
  ),
});

const CatalogBody = Type.Object({
  types: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      vct: Type.String(),
      tenant: Type.String(),
      tenantName: Type.String({ description: "The tenant's display name." }),
      claims: Type.Array(Type.String()),
      claimLabels: Type.Record(Type.String(), Type.String(), { description: 'A label to show for each claim.' }),
      formats: Type.Optional(
        Type.Array(Type.String(), { description: 'Present for a type offered as ISO mdoc: every format it is offered in.' }),
      ),
      doctype: Type.Optional(Type.String({ description: 'The doctype of its mdocs, with formats.' })),
    }),
  ),
});

const requestResponses = {
  201: { description: 'The presentation transaction.', schema: RequestCreated },
  400: refusal(['invalid_request', 'malformed_json', 'unknown_claim', 'unsupported_claim', 'unsupported_format']),
  403: refusal('untrusted_issuer', 'the issuer is not in the trust registry, or it is suspended or removed.'),
  404: refusal('unknown_type', 'the vct is not in the catalog.'),
  409: refusal('nonce_reused', 'a live transaction already has this nonce.'),
};

/** Hosted verification over OID4VP (docs/verification.md). Public and never metered. */
export function verificationRoutes(verifier: HostedVerifier): RouteGroup {
  return {
    name: 'verification',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/verify/catalog',
        auth: 'public',
        stability: 'unpromised',
        cors: true,
        summary: 'The credential types a relying party may ask a holder to present.',
        responses: { 200: { description: 'Requestable types.', schema: CatalogBody } },
        handler: async () => ({ types: await verifier.catalog() }),
      }),
      defineRoute({
        method: 'POST',
        path: '/verify/request',
        auth: 'public',
        budget: 'verify-request',
        stability: 'unpromised',
        cors: true,
        summary: 'Open an OID4VP presentation transaction; no account needed.',
        body: RequestBody,
        responses: requestResponses,
        handler: async (request, reply) => reply.code(201).send(await verifier.open(request.body as RequestInput, null)),
      }),
      defineRoute({
        method: 'POST',
        path: '/api/requests',
        auth: 'operator',
        roles: ['verifier', 'owner'],
        scope: 'none',
        stability: 'unpromised',
        summary: 'Open an OID4VP presentation transaction on the operator plane (recorded with the operator).',
        body: RequestBody,
        responses: {
          ...OPERATOR_ERRORS,
          ...requestResponses,
          403: refusal(
            ['forbidden', 'untrusted_issuer'],
            'untrusted_issuer: the issuer is not in the trust registry, or it is suspended or removed.',
          ),
        },
        handler: async (request, reply) =>
          reply.code(201).send(await verifier.open(request.body as RequestInput, operatorActor(operatorOf(request)))),
      }),
      defineRoute({
        method: 'GET',
        path: '/verify/result/{transactionId}',
        auth: 'result-token',
        // The interface: a poll without the resultToken is answered 200 with outcome null, never 401.
        credentialOptional: true,
        stability: 'unpromised',
        cors: true,
        summary:
          'Poll a transaction with Authorization: Bearer <resultToken>. Always 200: the outcome once the wallet has answered, else outcome null with the reason beside it. A transaction opened with redirectUri and answered by a wallet on the same device also needs Response-Code: <the response_code its browser brought back>.',
        params: Type.Object({ transactionId: Type.String({ maxLength: 100 }) }),
        responses: {
          200: {
            description:
              'The outcome; or outcome null, with reason, while the wallet has not answered and whenever the outcome is not yours to see (no or another token, an unknown or expired transaction, a missing or wrong Response-Code).',
            schema: PollBody,
          },
        },
        handler: async (request, reply) => {
          const code = request.headers['response-code'];
          const answer = await verifier.result(
            request.params.transactionId,
            resultTokenOf(request),
            typeof code === 'string' ? code : undefined,
          );
          return reply.header('cache-control', 'no-store').send(answer);
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/verify/response/{transactionId}',
        auth: 'result-token',
        stability: 'unpromised',
        cors: true,
        summary:
          'Relay the Digital Credentials API’s answer with Authorization: Bearer <resultToken>; it completes the transaction and answers its outcome (docs/dc-api.md).',
        params: Type.Object({ transactionId: Type.String({ maxLength: 100 }) }),
        body: DcApiAnswer,
        responses: {
          200: { description: 'The transaction’s outcome.', schema: Type.Object({ outcome: Outcome }) },
          400: refusal(
            'unreadable_response',
            'not encrypted to this transaction’s key, another algorithm, or neither response nor error.',
          ),
          401: refusal('unauthorized', 'no resultToken was sent.'),
          403: refusal('wrong_result_token', 'the bearer is not this transaction’s resultToken.'),
          404: refusal('unknown_transaction', 'no live transaction has this id (never made, or expired).'),
          409: refusal(['transaction_complete', 'dc_api_not_requested']),
        },
        handler: async (request, reply) => {
          const body = request.body as {
            protocol: string;
            data: { response?: string; error?: string; error_description?: string };
          };
          const token = requiredResultTokenOf(request);
          const outcome = await verifier.respondDcApi(request.params.transactionId, token, body.protocol, body.data);
          return reply.header('cache-control', 'no-store').send({ outcome });
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/oid4vp/request/{transactionId}',
        auth: 'public',
        stability: 'unpromised',
        summary: 'The signed OID4VP request object (JAR) of a transaction, with its DCQL query; re-fetchable.',
        params: Type.Object({ transactionId: TransactionId }),
        responses: {
          200: { description: 'Compact JWS, typ oauth-authz-req+jwt.', contentType: `application/${REQUEST_OBJECT_TYP}` },
          404: refusal('unknown_transaction'),
        },
        handler: async (request, reply) => {
          const jwt = await verifier.requestObject(request.params.transactionId);
          return reply.type(`application/${REQUEST_OBJECT_TYP}`).header('cache-control', 'no-store').send(jwt);
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/oid4vp/response',
        auth: 'public',
        stability: 'unpromised',
        undocumented: 'The wallet-facing answer of OID4VP direct_post; its body is not promised to relying parties.',
        surface: 'oauth',
        accepts: 'form',
        summary: 'The wallet posts its authorization response here (OID4VP 1.0 direct_post, or direct_post.jwt for HAIP).',
        body: Type.Object(
          {
            vp_token: Type.Optional(Type.String({ maxLength: 256 * 1024 })),
            response: Type.Optional(
              Type.String({
                maxLength: MAX_RESPONSE_JWE,
                description: 'direct_post.jwt: the response, a JWE (HAIP transactions).',
              }),
            ),
            state: Type.Optional(Type.String({ maxLength: 200 })),
            error: Type.Optional(Type.String({ maxLength: 200 })),
            error_description: Type.Optional(Type.String({ maxLength: 2000 })),
          },
          // Older wallets add parameters of their draft (presentation_submission); they are ignored.
          { additionalProperties: Type.String({ maxLength: 64 * 1024 }) },
        ),
        responses: {
          200: {
            description:
              'Accepted; with redirect_uri when the transaction was opened with one (a wallet on the same device follows it).',
            schema: Type.Object({ redirect_uri: Type.Optional(Type.String()) }),
          },
          400: oauthError('The presentation failed a check (error is the failure code) or the state is unknown.'),
        },
        handler: async (request, reply) => {
          const answer = await verifier.respond(request.body as Record<string, string>);
          reply.header('cache-control', 'no-store');
          if (answer.accepted) return reply.send(answer.redirectUri === undefined ? {} : { redirect_uri: answer.redirectUri });
          return reply.code(400).send({ error: answer.error, error_description: answer.description });
        },
      }),
    ],
  };
}
