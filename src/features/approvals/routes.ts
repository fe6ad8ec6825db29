import { Type } from '@sinclair/typebox';
import { idPatternOfAny } from '../../core/ids.ts';
import { ApprovalSchema, ApprovedSchema } from '../../http/admin/approval-desk.ts';
import { ActorLabel, adminRoute, LIST_SCOPE, ListPage, ListQuery, listParams } from '../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../http/admin/role-matrix.ts';
import { operatorOf } from '../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { AdminMutation, DisplayText, OPERATOR_ERRORS, refusal } from '../../http/schemas/common.ts';
import { APPROVAL_STATES } from '../../ports/approval-store.ts';
import { type ApprovalService, NOTE_MAX, REASON_MAX } from './desk.ts';

const DOC = 'docs/backoffice/approvals.md';
const BASE = '/api/admin/approvals';

// Token mints are filed with provisioning-request ids (docs/integration.md): both name an approval.
const ApprovalId = Type.String({ pattern: idPatternOfAny(['approval', 'provisioning']) });
const ActionName = Type.String({ minLength: 3, maxLength: 64, pattern: '^[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)+$' });
const State = Type.Union(APPROVAL_STATES.map((s) => Type.Literal(s)));

const Decided = AdminMutation({ approval: ApprovalSchema });
const NoteBody = Type.Object({ note: Type.Optional(DisplayText(NOTE_MAX)) }, { additionalProperties: false });
const ById = Type.Object({ approvalId: ApprovalId });

/** The approval desk (docs/backoffice/approvals.md): four eyes over the back office's weightiest actions. */
export function approvalRoutes(desk: ApprovalService): RouteGroup {
  const admin = adminRoute(DOC);
  const decision = (verb: 'approve' | 'reject' | 'withdraw', summary: string, answer: string) =>
    defineRoute({
      ...admin,
      method: 'POST',
      path: `${BASE}/{approvalId}/${verb}`,
      roles: ROLE_MATRIX.approvalsWrite,
      // The approval's tenant is in the row: the desk holds a scoped operator to it (404 otherwise).
      scope: 'none',
      summary,
      params: ById,
      body: NoteBody,
      bodyOptional: true,
      responses: {
        200: { description: answer, schema: verb === 'approve' ? ApprovedSchema : Decided },
        ...OPERATOR_ERRORS,
        403:
          verb === 'withdraw'
            ? refusal('forbidden', 'not the requester, or the credential lacks the role.')
            : refusal(['forbidden', 'same_operator'], "forbidden: the action's roles are not the caller's."),
        404: refusal('unknown_approval'),
        409: refusal('approval_state', 'approved, rejected, withdrawn or expired.'),
      },
      handler: async (request) => {
        const by = operatorOf(request);
        const note = request.body?.note ?? null;
        return desk[verb](by, request.params.approvalId, note);
      },
    });

  return {
    name: 'admin-approvals',
    routes: [
      defineRoute({
        ...admin,
        method: 'GET',
        path: BASE,
        roles: ROLE_MATRIX.approvalsRead,
        scope: LIST_SCOPE,
        summary: 'Approvals, newest first.',
        querystring: ListQuery({
          state: Type.Optional(State),
          action: Type.Optional(ActionName),
          requestedBy: Type.Optional(ActorLabel),
        }),
        responses: {
          200: { description: 'A page of approvals.', schema: ListPage('approvals', ApprovalSchema) },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => {
          const { state, action, requestedBy } = request.query;
          return desk.list(operatorOf(request), listParams(request), {
            ...(state === undefined ? {} : { state }),
            ...(action === undefined ? {} : { action }),
            ...(requestedBy === undefined ? {} : { requestedBy }),
          });
        },
      }),
      defineRoute({
        ...admin,
        method: 'GET',
        path: `${BASE}/{approvalId}`,
        roles: ROLE_MATRIX.approvalsRead,
        scope: 'none',
        summary: 'One approval.',
        params: ById,
        responses: {
          200: { description: 'The approval.', schema: ApprovalSchema },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_approval'),
        },
        handler: async (request) => desk.get(operatorOf(request), request.params.approvalId),
      }),
      defineRoute({
        ...admin,
        method: 'POST',
        path: BASE,
        roles: ROLE_MATRIX.approvalsWrite,
        // The tenant is inside `params`, which only the action reads: the desk holds a scoped operator to it.
        scope: 'none',
        summary: 'Ask for a four-eyes action; another operator approves it.',
        body: Type.Object(
          {
            action: ActionName,
            params: Type.Object({}, { additionalProperties: true, maxProperties: 16 }),
            reason: Type.Optional(DisplayText(REASON_MAX)),
          },
          { additionalProperties: false },
        ),
        responses: {
          201: { description: 'The approval, pending.', schema: AdminMutation({ approval: ApprovalSchema }) },
          ...OPERATOR_ERRORS,
          400: refusal(['invalid_request', 'malformed_json', 'unknown_action'], 'invalid_request names the field.'),
          403: refusal('forbidden', "the action's roles or tenant are not the caller's."),
          404: refusal(['unknown_tenant', 'unknown_type', 'unknown_credential', 'unknown_account'], 'the target does not exist.'),
          409: refusal('bulk_too_large'),
        },
        handler: async (request, reply) => {
          const { action, params, reason } = request.body;
          const filed = await desk.request(action, params, operatorOf(request), reason);
          reply.code(201);
          return { ok: true as const, ...filed };
        },
      }),
      decision(
        'approve',
        'Approve a pending approval (not your own): its action runs now, in the same transaction.',
        'The approval, approved, with its result.',
      ),
      decision('reject', 'Reject a pending approval (not your own: the requester withdraws).', 'The approval, rejected.'),
      decision('withdraw', 'Withdraw a pending approval you asked for.', 'The approval, withdrawn.'),
    ],
  };
}
