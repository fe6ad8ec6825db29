import { Type } from '@sinclair/typebox';
import { ApprovalSchema } from '../../../http/admin/approval-desk.ts';
import type { RouteDef } from '../../../http/route.ts';
import { AccountId, DisplayText, refusal } from '../../../http/schemas/common.ts';
import type { StoredRequestState } from '../../../ports/compliance-store.ts';
import type { ComplianceService } from './compliance-service.ts';
import type { ErasureRequests } from './erasure-requests.ts';
import { accessView, erasureView } from './request-views.ts';
import { complianceOperations, viewsAt } from './routes-common.ts';
import {
  AccessRequestId,
  AccessRequestView,
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
export function requestRoutes(compliance: ComplianceService, erasures: ErasureRequests, clockNow: () => number): RouteDef[] {
  const { list, detail, action } = complianceOperations;
  const requestFields = { source: Source, receivedAt: Type.Optional(ReceivedAt) };
  return [
    detail('/dsar/lookup', {
      summary: 'Where the service holds a data subject: every registered place, with counts and categories.',
      body: { subject: Subject },
      answer: ['The places that hold the subject.', LookupView],
      read: ({ body }) => compliance.lookup(body.subject),
    }),
    list('/dsar/requests', {
      summary: 'Access requests, newest received first: state, subject, due date and answer.',
      tenanted: false,
      filters: { state: States(['received', 'answered', 'refused']) },
      page: ['requests', AccessRequestView, 'A page of access requests.'],
      cursor: ['number', 'string'],
      read: ({ state, ...window }) => compliance.accessRequests(state, window),
      order: (r) => [r.receivedAt, r.id],
      views: viewsAt(clockNow, accessView),
    }),
    action('/dsar/negative-response', {
      roles: 'complianceRead',
      summary: 'Record that nothing is held on a subject, answered as a statement signed with the platform key.',
      body: { subject: Subject, ...requestFields, requestId: Type.Optional(AccessRequestId) },
      answer: [
        200,
        'The access request, answered, and the signed statement.',
        { request: AccessRequestView, statement: Type.String() },
      ],
      refusals: {
        404: refusal('unknown_request', 'requestId names no access request.'),
        409: refusal(
          ['subject_held', 'request_state'],
          'subject_held: the lookup finds the subject, or a negative response for it stands; request_state: the request was answered.',
        ),
      },
      write: ({ body: { subject, ...input }, actor }) => compliance.negativeResponse(subject, input, actor),
    }),
    action('/dsar/export', {
      roles: 'dsarExport',
      summary: "File the four-eyes export of a holder account's data (subject.export) for an access request.",
      body: {
        accountId: AccountId,
        ...requestFields,
        requestId: Type.Optional(AccessRequestId),
        reason: Type.Optional(DisplayText(500)),
      },
      answer: [
        202,
        'The access request and the approval a second owner decides.',
        { request: AccessRequestView, approval: ApprovalSchema },
      ],
      refusals: {
        404: ['unknown_account', 'unknown_request'],
        409: refusal('request_state', 'the access request was answered or refused, or its export is pending.'),
      },
      write: ({ body: { accountId, ...input }, principal, actor }) =>
        compliance.requestExport(accountId, input, principal, actor),
    }),
    action('/dsar/refuse', {
      summary: 'Refuse an access request on a ground: legal hold, cannot identify, manifestly unfounded.',
      body: {
        subject: Subject,
        ...requestFields,
        requestId: Type.Optional(AccessRequestId),
        ground: Ground,
        note: Type.Optional(DisplayText(500)),
      },
      answer: [200, 'The access request, refused.', { request: AccessRequestView }],
      refusals: {
        404: refusal('unknown_request', 'requestId names no access request.'),
        409: refusal('request_state', 'the request was answered or refused already, or its export is pending.'),
      },
      write: ({ body: { subject, ...input }, actor }) => compliance.refuseAccess(subject, input, actor),
    }),
    list('/erasure/requests', {
      summary: 'Erasure requests, newest received first: state, due date, ground or receipt.',
      tenanted: false,
      filters: { state: States(['received', 'completed', 'refused']) },
      page: ['requests', ErasureRequestView, 'A page of erasure requests.'],
      cursor: ['number', 'string'],
      read: ({ state, ...window }) => erasures.requests(state, window),
      order: (r) => [r.receivedAt, r.id],
      views: viewsAt(clockNow, erasureView),
    }),
    detail('/erasure/requests/{requestId}', {
      summary: 'One erasure request.',
      answer: ['The erasure request.', ErasureRequestView],
      refusals: { 404: 'unknown_request' },
      read: ({ params }) => erasures.get(params.requestId),
    }),
    action('/erasure/requests', {
      summary: 'File an erasure request a holder made outside the portal.',
      body: { accountId: AccountId, ...requestFields, identityCheck: Type.Optional(IdentityCheck) },
      answer: [201, 'The erasure request, received.', { request: ErasureRequestView }],
      write: ({ body: { accountId, ...input }, actor }) => erasures.file(accountId, input, actor),
    }),
    action('/erasure/requests/{requestId}/refuse', {
      summary: 'Refuse an erasure request on a ground: legal hold, cannot identify, manifestly unfounded.',
      body: { ground: Ground, note: Type.Optional(DisplayText(500)) },
      answer: [200, 'The erasure request, refused.', { request: ErasureRequestView }],
      refusals: { 404: 'unknown_request', 409: refusal('request_state', 'the request was completed or refused already.') },
      write: ({ params, body, actor }) => erasures.refuse(params.requestId, body.ground, body.note, actor),
    }),
    action('/erasure/requests/{requestId}/verify', {
      summary: "The requester's identity is checked: erase the account, as the portal's verified erasure does.",
      body: { identityCheck: Type.Optional(IdentityCheck) },
      answer: [
        200,
        'The erasure request, completed (or verified while the disk check is pending), and its receipt.',
        { request: ErasureRequestView, receipt: Type.Object({ receiptId: Type.String(), disk: Type.String() }) },
      ],
      refusals: { 404: 'unknown_request', 409: refusal('request_state', 'the request was completed or refused already.') },
      write: ({ params, body, actor }) => erasures.verify(params.requestId, body.identityCheck, actor),
    }),
  ];
}
