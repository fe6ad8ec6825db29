import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ServiceError } from '../../../core/errors.ts';
import { ApprovalSchema } from '../../../http/admin/approval-desk.ts';
import { adminRoute, ListPage, ListQuery, listParams } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorOf } from '../../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteDef } from '../../../http/route.ts';
import { AdminMutation, EmailAddress, errorResponse, Nullable, OPERATOR_ERRORS, Slug } from '../../../http/schemas/common.ts';
import { CreateOperatorBody, firstCredentialOf } from '../../operators/schemas.ts';
import type { OperatorAdmin, Outcome } from './operator-admin.ts';
import {
  Issuer,
  OperatorDetail,
  OperatorRow,
  OperatorStatus,
  Password,
  Reason,
  Role,
  Roles,
  Subject,
  Username,
  UsernamePrefix,
} from './schemas.ts';

const DOC = 'docs/backoffice/people.md';
const BASE = '/api/admin/people/operators';
const ByUsername = Type.Object({ username: Username });
const Changed = AdminMutation({ operator: OperatorDetail });
const Filed = AdminMutation({ approval: ApprovalSchema });

/** 200 with the operator after a change made at once; 202 with the approval a second owner decides. */
const send = (reply: FastifyReply, outcome: Outcome) =>
  outcome.done
    ? reply.code(200).send({ ok: true as const, auditSeq: outcome.auditSeq, operator: outcome.operator })
    : reply.code(202).send({ ok: true as const, auditSeq: outcome.auditSeq, approval: outcome.approval });

/** Operators (docs/backoffice/people.md, "Operators"): platform operations. */
export function operatorRoutes(admin: OperatorAdmin): RouteDef[] {
  const read = { ...adminRoute(DOC), roles: ROLE_MATRIX.operatorsRead, scope: 'platform' } as const;
  const write = { ...adminRoute(DOC), roles: ROLE_MATRIX.operatorsWrite, scope: 'platform' } as const;
  // An operator's own credentials: a scoped operator changes its own too (the operation names no tenant).
  const self = { ...adminRoute(DOC), roles: ROLE_MATRIX.operatorsSelf, scope: 'none' } as const;
  const changed = (description: string, refusals: Record<number, ReturnType<typeof errorResponse>>) => ({
    200: { description, schema: Changed },
    ...OPERATOR_ERRORS,
    ...refusals,
  });
  const ownerChange = (description: string, refusals: Record<number, ReturnType<typeof errorResponse>>) => ({
    ...changed(description, refusals),
    202: { description: 'The operator holds owner: an approval was filed for a second owner to decide.', schema: Filed },
  });
  return [
    defineRoute({
      ...read,
      method: 'GET',
      path: BASE,
      summary: 'Operators by username; filter by status, role, tenant scope and username prefix.',
      querystring: ListQuery({
        status: Type.Optional(OperatorStatus),
        role: Type.Optional(Role),
        q: Type.Optional(UsernamePrefix),
      }),
      responses: { 200: { description: 'A page of operators.', schema: ListPage('operators', OperatorRow) }, ...OPERATOR_ERRORS },
      handler: async (request) => {
        const { status, role, q } = request.query;
        return admin.list(listParams(request), {
          ...(status ? { status } : {}),
          ...(role ? { role } : {}),
          ...(q ? { prefix: q } : {}),
        });
      },
    }),
    defineRoute({
      ...write,
      method: 'POST',
      path: BASE,
      summary:
        'Create an operator: the rules of POST /api/operators (an invitation mailed to `email`, or an enterprise `identity`; a `password` from the owner token only).',
      body: CreateOperatorBody,
      responses: {
        201: { description: 'Created (status invited until its person accepts the mailed invitation).', schema: Changed },
        ...OPERATOR_ERRORS,
        400: errorResponse('invalid_request (not exactly one of email, identity, password), malformed_json or weak_password'),
        403: errorResponse('forbidden: a password from an operator (no operator sets another’s), or the roles.'),
        404: errorResponse('unknown_tenant'),
        409: errorResponse(
          'conflict: the username is taken (removed operators keep theirs); identity_linked; approval_required: owner given by an operator.',
        ),
        503: errorResponse('mail_unavailable: the invitation could not be mailed; nothing was created.'),
      },
      handler: async (request, reply) => {
        const { username, roles, tenant } = request.body;
        const created = await admin.create(
          { username, roles, ...(tenant === undefined ? {} : { tenant }), credential: firstCredentialOf(request.body) },
          operatorOf(request),
        );
        return reply.code(201).send({ ok: true as const, auditSeq: created.auditSeq, operator: created.operator });
      },
    }),
    defineRoute({
      ...write,
      method: 'POST',
      path: `${BASE}/{username}/invite`,
      summary:
        'Mail a new one-time link: the invitation again to an invited operator (to `email`, which may correct its address), or a password reset to an active one.',
      params: ByUsername,
      body: Type.Object({ email: Type.Optional(EmailAddress) }, { additionalProperties: false }),
      bodyOptional: true,
      responses: changed('Mailed; the earlier link no longer works.', {
        403: errorResponse('forbidden: an active operator’s address is changed by that operator only'),
        404: errorResponse('unknown_operator'),
        409: errorResponse('operator_state: suspended or removed, or active without an address'),
        503: errorResponse('mail_unavailable: nothing was changed'),
      }),
      handler: async (request, reply) =>
        send(reply, await admin.invite(request.params.username, request.body.email, operatorOf(request))),
    }),
    defineRoute({
      ...read,
      method: 'GET',
      path: `${BASE}/{username}`,
      summary: 'One operator: roles, scope, status, lock, identity link, live sessions and last sign-in.',
      params: ByUsername,
      responses: {
        200: { description: 'The operator.', schema: OperatorDetail },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_operator'),
      },
      handler: async (request) => admin.get(request.params.username),
    }),
    defineRoute({
      ...write,
      method: 'POST',
      path: `${BASE}/{username}/enable`,
      summary: 'Enable a suspended operator.',
      params: ByUsername,
      body: Type.Object({}, { additionalProperties: false }),
      bodyOptional: true,
      responses: changed('Enabled.', { 404: errorResponse('unknown_operator') }),
      handler: async (request, reply) => send(reply, await admin.enable(request.params.username, operatorOf(request))),
    }),
    defineRoute({
      ...write,
      method: 'POST',
      path: `${BASE}/{username}/suspend`,
      summary: 'Suspend an operator: its sessions stop working; an owner is suspended once a second owner approves.',
      params: ByUsername,
      body: Type.Object({ reason: Type.Optional(Reason) }, { additionalProperties: false }),
      bodyOptional: true,
      responses: ownerChange('Suspended.', {
        404: errorResponse('unknown_operator'),
        409: errorResponse('last_owner, or conflict (its roles changed meanwhile)'),
      }),
      handler: async (request, reply) =>
        send(reply, await admin.setStatus('suspended', request.params.username, operatorOf(request), request.body.reason)),
    }),
    defineRoute({
      ...write,
      method: 'POST',
      path: `${BASE}/{username}/remove`,
      summary: 'Remove an operator for good; an owner is removed once a second owner approves.',
      params: ByUsername,
      body: Type.Object({ reason: Type.Optional(Reason) }, { additionalProperties: false }),
      bodyOptional: true,
      responses: ownerChange('Removed.', {
        404: errorResponse('unknown_operator'),
        409: errorResponse('last_owner, or conflict (its roles changed meanwhile)'),
      }),
      handler: async (request, reply) =>
        send(reply, await admin.setStatus('removed', request.params.username, operatorOf(request), request.body.reason)),
    }),
    defineRoute({
      ...write,
      method: 'POST',
      path: `${BASE}/{username}/roles`,
      summary: "Replace an operator's roles (and, when given, its tenant scope); taking owner away is filed for a second owner.",
      params: ByUsername,
      body: Type.Object(
        { roles: Roles, tenant: Type.Optional(Nullable(Slug)), reason: Type.Optional(Reason) },
        { additionalProperties: false },
      ),
      responses: ownerChange('Changed.', {
        404: errorResponse('unknown_operator or unknown_tenant'),
        409: errorResponse('last_owner, or conflict (its roles changed meanwhile)'),
      }),
      handler: async (request, reply) => {
        const { roles, tenant, reason } = request.body;
        const params = { username: request.params.username, roles, ...(tenant === undefined ? {} : { tenant }) };
        return send(reply, await admin.setRoles(params, operatorOf(request), reason));
      },
    }),
    defineRoute({
      ...self,
      method: 'POST',
      path: `${BASE}/{username}/password`,
      // The current password is checked as a sign-in is: against the same budgets (docs/security.md).
      budget: 'operator-login',
      budgetSubject: (request) => request.params.username,
      summary:
        'The operator’s own new password (proving its current one), or the owner token’s recovery; every session of the operator ends.',
      params: ByUsername,
      body: Type.Object({ password: Password, currentPassword: Type.Optional(Password) }, { additionalProperties: false }),
      responses: changed('Changed; the operator signs in again.', {
        400: errorResponse('invalid_request, malformed_json or weak_password'),
        401: errorResponse('invalid_credentials: currentPassword is missing or wrong'),
        403: errorResponse('forbidden: another operator’s password (send it a reset: /invite)'),
        404: errorResponse('unknown_operator'),
      }),
      handler: async (request, reply) => {
        const { password, currentPassword } = request.body;
        return send(reply, await admin.setPassword(request.params.username, password, currentPassword, operatorOf(request)));
      },
    }),
    defineRoute({
      ...self,
      method: 'POST',
      path: `${BASE}/{username}/idp`,
      summary:
        'The operator’s own enterprise identity (issuer and subject), or unlinked with issuer null; the owner token for any operator.',
      params: ByUsername,
      body: Type.Object({ issuer: Nullable(Issuer), subject: Type.Optional(Subject) }, { additionalProperties: false }),
      responses: changed('Linked or unlinked.', {
        403: errorResponse('forbidden: another operator’s identity link'),
        404: errorResponse('unknown_operator'),
        409: errorResponse('identity_linked: another operator holds this identity'),
      }),
      handler: async (request, reply) => {
        const { issuer, subject } = request.body;
        if ((issuer === null) !== (subject === undefined)) {
          throw new ServiceError('invalid_request', 'issuer and subject go together; unlink with {"issuer": null} alone.');
        }
        const identity = issuer === null || subject === undefined ? null : { issuer, subject };
        return send(reply, await admin.setIdentity(request.params.username, identity, operatorOf(request)));
      },
    }),
  ];
}
