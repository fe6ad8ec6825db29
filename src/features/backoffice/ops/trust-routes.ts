import { Type } from '@sinclair/typebox';
import { cursorOf, iso, ListPage, ListQuery, listParams, page } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { defineRoute, internalOperatorRoute } from '../../../http/route.ts';
import { AdminMutation, DisplayText, errorResponse, OPERATOR_ERRORS } from '../../../http/schemas/common.ts';
import type { TrustedIssuer, TrustState } from '../../../ports/trust-registry.ts';
import { DID_WEB } from '../../issuer-trust/did-web-resolver.ts';
import type { TrustChange, TrustService } from '../../issuer-trust/trust-service.ts';
import { actorOf, BASE, DOC, opsGet, opsPost, platformRoute } from './routes-common.ts';
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
  ...OPERATOR_ERRORS,
  404: errorResponse('unknown_issuer: the DID is not in the trust registry.'),
  409: errorResponse('issuer_state: the issuer is not in a state this change starts from.'),
} as const;

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
      ...CHANGE_REFUSALS,
      502: errorResponse('did_unresolvable'),
    },
    handler: async (request) => changed(await trust.restore(request.body.did, request.body.reason ?? null, actorOf(request))),
  });

/** The trust registry on the back office (docs/operations.md, "Trust registry"). */
export function trustRoutes(trust: TrustService) {
  return [
    defineRoute({
      ...opsGet(`${BASE}/trust`),
      summary: 'The issuers the hosted verifier accepts beyond this deployment’s tenants, by DID.',
      querystring: ListQuery({ state: Type.Optional(StateFilter) }),
      responses: {
        200: { description: 'A page of trusted issuers.', schema: ListPage('issuers', TrustedIssuerView) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) => {
        const p = listParams(request);
        const rows = await trust.list(request.query.state as TrustState | undefined, {
          limit: p.limit + 1,
          after: cursorOf(p.after, ['string'] as const),
        });
        const shown = page(rows, p.limit, (t) => [t.did], issuerView);
        return { issuers: shown.rows, nextCursor: shown.nextCursor };
      },
    }),
    defineRoute({
      ...opsPost(`${BASE}/trust/add`),
      summary: 'Trust an issuer beyond this deployment: its DID document is resolved and kept.',
      body: Type.Object({ did: Did, label: DisplayText(100) }, { additionalProperties: false }),
      responses: {
        200: { description: 'The issuer, trusted.', schema: Changed },
        ...OPERATOR_ERRORS,
        409: errorResponse('issuer_known or issuer_is_tenant.'),
        502: errorResponse('did_unresolvable: the DID document could not be read, is not its own, or names no P-256 key.'),
      },
      handler: async (request) => changed(await trust.add(request.body.did, request.body.label, actorOf(request))),
    }),
    defineRoute({
      ...opsPost(`${BASE}/trust/suspend`),
      summary: 'Stop trusting an issuer: its credentials verify as untrusted from the next presentation on.',
      body: Type.Object({ did: Did, reason: Reason }, { additionalProperties: false }),
      responses: { 200: { description: 'The issuer, suspended.', schema: Changed }, ...CHANGE_REFUSALS },
      handler: async (request) => changed(await trust.suspend(request.body.did, request.body.reason, actorOf(request))),
    }),
    restoreRoute(trust, { ...platformRoute, path: `${BASE}/trust/restore` }),
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
      responses: { 200: { description: 'The issuer, removed.', schema: Changed }, ...CHANGE_REFUSALS },
      handler: async (request) => changed(await trust.remove(request.body.did, request.body.reason, actorOf(request))),
    }),
    restoreRoute(trust, { ...consoleRoute, path: '/api/trust/restore' }),
  ];
}
