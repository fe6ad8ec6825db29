import { Type } from '@sinclair/typebox';
import { adminRoute, iso } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { defineRoute, internalOperatorRoute } from '../../../http/route.ts';
import { AdminMutation, DisplayText, OPERATOR_ERRORS, refusal } from '../../../http/schemas/common.ts';
import type { TrustedIssuer, TrustState } from '../../../ports/trust-registry.ts';
import { DID_WEB } from '../../issuer-trust/did-web-resolver.ts';
import type { TrustChange, TrustService } from '../../issuer-trust/trust-service.ts';
import { actorOf, DOC, opsOperations } from './routes-common.ts';
import { TrustedIssuerView } from './schemas.ts';

const Did = Type.String({ maxLength: 300, pattern: DID_WEB.source, description: 'A did:web DID.' });
const Reason = Type.String({ minLength: 3, maxLength: 500, description: 'Why, kept in the audit log.' });
const StateFilter = Type.Union([Type.Literal('active'), Type.Literal('suspended'), Type.Literal('removed')]);

export const issuerView = (t: TrustedIssuer): TrustedIssuerView => ({
  did: t.did,
  label: t.label,
  state: t.state,
  keys: (Array.isArray(t.document.verificationMethod) ? t.document.verificationMethod : [])
    .map((m: unknown) =>
      m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string' ? (m as { id: string }).id : '',
    )
    .filter((id) => id !== ''),
  addedBy: t.addedBy,
  addedAt: iso(t.addedAt),
  changedBy: t.changedBy,
  changedAt: iso(t.changedAt),
  reason: t.reason,
});

const changed = ({ ok, auditSeq, issuer }: TrustChange) => ({ ok, auditSeq, issuer: issuerView(issuer) });
const Changed = AdminMutation({ issuer: TrustedIssuerView });
const CHANGE_REFUSALS = {
  404: refusal('unknown_issuer', 'the DID is not in the trust registry.'),
  409: refusal('issuer_state', 'the issuer is not in a state this change starts from.'),
};
const platformRoute = { ...adminRoute(DOC), scope: 'platform' as const };

/** A restore, on the back office and in the console alike: the entry trusted again, its document resolved again. */
const restoreRoute = (trust: TrustService, where: typeof platformRoute & { path: string }) =>
  defineRoute({
    ...where,
    method: 'POST',
    roles: ROLE_MATRIX.opsRun,
    summary: 'Trust a suspended or removed issuer again, its DID document resolved again.',
    body: Type.Object({ did: Did, reason: Type.Optional(Reason) }, { additionalProperties: false }),
    responses: {
      200: { description: 'The issuer, trusted again.', schema: Changed },
      ...OPERATOR_ERRORS,
      404: CHANGE_REFUSALS[404],
      409: CHANGE_REFUSALS[409],
      502: refusal('did_unresolvable'),
    },
    handler: async (request) => changed(await trust.restore(request.body.did, request.body.reason ?? null, actorOf(request))),
  });

/** The trust registry on the back office (docs/operations.md, "Trust registry"). */
export function trustRoutes(trust: TrustService) {
  const { list, action } = opsOperations;
  return [
    list('/trust', {
      scope: 'platform',
      summary: 'The issuers the hosted verifier accepts beyond this deployment’s tenants, by DID.',
      filters: { state: Type.Optional(StateFilter) },
      page: ['issuers', TrustedIssuerView, 'A page of trusted issuers.'],
      cursor: ['string'],
      read: ({ state, after, limit }) => trust.list(state as TrustState | undefined, { limit, after }),
      order: (t) => [t.did],
      view: issuerView,
    }),
    action('/trust/add', {
      summary: 'Trust an issuer beyond this deployment: its DID document is resolved and kept.',
      body: { did: Did, label: DisplayText(100) },
      answer: [200, 'The issuer, trusted.', { issuer: TrustedIssuerView }],
      refusals: {
        409: ['issuer_known', 'issuer_is_tenant'],
        502: refusal('did_unresolvable', 'the DID document could not be read, is not its own, or names no P-256 key.'),
      },
      write: async ({ body, actor }) => changed(await trust.add(body.did, body.label, actor)),
    }),
    action('/trust/suspend', {
      summary: 'Stop trusting an issuer: its credentials verify as untrusted from the next presentation on.',
      body: { did: Did, reason: Reason },
      answer: [200, 'The issuer, suspended.', { issuer: TrustedIssuerView }],
      refusals: CHANGE_REFUSALS,
      write: async ({ body, actor }) => changed(await trust.suspend(body.did, body.reason, actor)),
    }),
    restoreRoute(trust, { ...platformRoute, path: '/api/admin/ops/trust/restore' }),
  ];
}

/** The console's two trust operations, on the same registry (docs/operations.md, "Trust registry"). */
export function consoleTrustRoutes(trust: TrustService) {
  const consoleRoute = { ...internalOperatorRoute(`Console operation; ${DOC} states its shape.`), scope: 'platform' as const };
  return [
    defineRoute({
      ...consoleRoute,
      method: 'POST',
      path: '/api/trust/remove',
      roles: ROLE_MATRIX.opsRun,
      summary: 'Remove an issuer from the trust registry (it can be restored).',
      body: Type.Object({ did: Did, reason: Reason }, { additionalProperties: false }),
      responses: {
        200: { description: 'The issuer, removed.', schema: Changed },
        ...OPERATOR_ERRORS,
        404: CHANGE_REFUSALS[404],
        409: CHANGE_REFUSALS[409],
      },
      handler: async (request) => changed(await trust.remove(request.body.did, request.body.reason, actorOf(request))),
    }),
    restoreRoute(trust, { ...consoleRoute, path: '/api/trust/restore' }),
  ];
}
