import { Type } from '@sinclair/typebox';
import { ApprovalSchema } from '../../../http/admin/approval-desk.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorOf } from '../../../http/auth/operator-bearer.ts';
import { ListPage, PageQuery, pageParams } from '../../../http/list.ts';
import { defineRoute, type RouteDef } from '../../../http/route.ts';
import { AccountId, AdminMutation, DisplayText, errorResponse, OPERATOR_ERRORS } from '../../../http/schemas/common.ts';
import type { StoredRequestState } from '../../../ports/compliance-store.ts';
import type { ComplianceService } from './compliance-service.ts';
import type { ErasureRequests } from './erasure-requests.ts';
import { actorOf, BASE, platformRoute } from './routes-common.ts';
import {
  AccessRequestId,
  AccessRequestView,
  ErasureRequestParams,
  ErasureRequestView,
  Ground,
  IdentityCheck,
  LookupView,
  ReceivedAt,
  Source,
  Subject,
} from './schemas.ts';

const States = (states: readonly StoredRequestState[]) => Type.Optional(Type.Union(states.map((s) => Type.Literal(s))));

/** Data-subject access requests and erasure requests (docs/backoffice/compliance.md). */
export function requestRoutes(compliance: ComplianceService, erasures: ErasureRequests): RouteDef[] {
  const common = platformRoute;
  const actor = actorOf;
  const requestFields = { source: Source, receivedAt: Type.Optional(ReceivedAt) };
  return [
    defineRoute({
      ...common,
      method: 'POST',
      path: `${BASE}/dsar/lookup`,
      roles: ROLE_MATRIX.complianceRead,
      summary: 'Where the service holds a data subject: every registered place, with counts and categories.',
      body: Type.Object({ subject: Subject }, { additionalProperties: false }),
      responses: { 200: { description: 'The places that hold the subject.', schema: LookupView }, ...OPERATOR_ERRORS },
      handler: async (request) => compliance.lookup(request.body.subject),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/dsar/requests`,
      roles: ROLE_MATRIX.complianceRead,
      summary: 'Access requests, newest received first: state, subject, due date and answer.',
      querystring: PageQuery({ state: States(['received', 'answered', 'refused']) }),
      responses: {
        200: { description: 'A page of access requests.', schema: ListPage('requests', AccessRequestView) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) => compliance.listAccess(request.query.state as StoredRequestState, pageParams(request.query)),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${BASE}/dsar/negative-response`,
      roles: ROLE_MATRIX.complianceRead,
      summary: 'Record that nothing is held on a subject, answered as a statement signed with the platform key.',
      body: Type.Object(
        { subject: Subject, ...requestFields, requestId: Type.Optional(AccessRequestId) },
        { additionalProperties: false },
      ),
      responses: {
        200: {
          description: 'The access request, answered, and the signed statement.',
          schema: AdminMutation({ request: AccessRequestView, statement: Type.String() }),
        },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_request: requestId names no access request.'),
        409: errorResponse(
          'subject_held: the lookup finds the subject, or a negative response for it stands; request_state: the request was answered.',
        ),
      },
      handler: async (request) => {
        const { subject, ...input } = request.body;
        return compliance.negativeResponse(subject, input, actor(request));
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${BASE}/dsar/export`,
      roles: ROLE_MATRIX.dsarExport,
      summary: "File the four-eyes export of a holder account's data (subject.export) for an access request.",
      body: Type.Object(
        {
          accountId: AccountId,
          ...requestFields,
          requestId: Type.Optional(AccessRequestId),
          reason: Type.Optional(DisplayText(500)),
        },
        { additionalProperties: false },
      ),
      responses: {
        202: {
          description: 'The access request and the approval a second owner decides.',
          schema: AdminMutation({ request: AccessRequestView, approval: ApprovalSchema }),
        },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_account: the lookup finds the account nowhere; unknown_request.'),
        409: errorResponse('request_state: the access request was answered or refused, or its export is pending.'),
      },
      handler: async (request, reply) => {
        const { accountId, ...input } = request.body;
        const filed = await compliance.requestExport(accountId, input, operatorOf(request), actor(request));
        return reply.code(202).send(filed);
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${BASE}/dsar/refuse`,
      roles: ROLE_MATRIX.complianceWrite,
      summary: 'Refuse an access request on a ground: legal hold, cannot identify, manifestly unfounded.',
      body: Type.Object(
        {
          subject: Subject,
          ...requestFields,
          requestId: Type.Optional(AccessRequestId),
          ground: Ground,
          note: Type.Optional(DisplayText(500)),
        },
        { additionalProperties: false },
      ),
      responses: {
        200: { description: 'The access request, refused.', schema: AdminMutation({ request: AccessRequestView }) },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_request: requestId names no access request.'),
        409: errorResponse('request_state: the request was answered or refused already, or its export is pending.'),
      },
      handler: async (request) => {
        const { subject, ...input } = request.body;
        return compliance.refuseAccess(subject, input, actor(request));
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/erasure/requests`,
      roles: ROLE_MATRIX.complianceRead,
      summary: 'Erasure requests, newest received first: state, due date, ground or receipt.',
      querystring: PageQuery({ state: States(['received', 'completed', 'refused']) }),
      responses: {
        200: { description: 'A page of erasure requests.', schema: ListPage('requests', ErasureRequestView) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) => erasures.list(request.query.state as StoredRequestState, pageParams(request.query)),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/erasure/requests/{requestId}`,
      roles: ROLE_MATRIX.complianceRead,
      summary: 'One erasure request.',
      params: ErasureRequestParams,
      responses: {
        200: { description: 'The erasure request.', schema: ErasureRequestView },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_request'),
      },
      handler: async (request) => erasures.get(request.params.requestId),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${BASE}/erasure/requests`,
      roles: ROLE_MATRIX.complianceWrite,
      summary: 'File an erasure request a holder made outside the portal.',
      body: Type.Object(
        { accountId: AccountId, ...requestFields, identityCheck: Type.Optional(IdentityCheck) },
        { additionalProperties: false },
      ),
      responses: {
        201: { description: 'The erasure request, received.', schema: AdminMutation({ request: ErasureRequestView }) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request, reply) => {
        const { accountId, ...input } = request.body;
        return reply.code(201).send(await erasures.file(accountId, input, actor(request)));
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${BASE}/erasure/requests/{requestId}/refuse`,
      roles: ROLE_MATRIX.complianceWrite,
      summary: 'Refuse an erasure request on a ground: legal hold, cannot identify, manifestly unfounded.',
      params: ErasureRequestParams,
      body: Type.Object({ ground: Ground, note: Type.Optional(DisplayText(500)) }, { additionalProperties: false }),
      responses: {
        200: { description: 'The erasure request, refused.', schema: AdminMutation({ request: ErasureRequestView }) },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_request'),
        409: errorResponse('request_state: the request was completed or refused already.'),
      },
      handler: async (request) =>
        erasures.refuse(request.params.requestId, request.body.ground, request.body.note, actor(request)),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${BASE}/erasure/requests/{requestId}/verify`,
      roles: ROLE_MATRIX.complianceWrite,
      summary: "The requester's identity is checked: erase the account, as the portal's verified erasure does.",
      params: ErasureRequestParams,
      body: Type.Object({ identityCheck: Type.Optional(IdentityCheck) }, { additionalProperties: false }),
      responses: {
        200: {
          description: 'The erasure request, completed (or verified while the disk check is pending), and its receipt.',
          schema: AdminMutation({
            request: ErasureRequestView,
            receipt: Type.Object({ receiptId: Type.String(), disk: Type.String() }),
          }),
        },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_request'),
        409: errorResponse('request_state: the request was completed or refused already.'),
      },
      handler: async (request) => erasures.verify(request.params.requestId, request.body.identityCheck, actor(request)),
    }),
  ];
}
