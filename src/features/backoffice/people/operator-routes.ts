import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../../core/errors.ts';
import { adminOperations } from '../../../http/admin/operations.ts';
import type { RouteDef } from '../../../http/route.ts';
import { EmailAddress, Nullable, refusal, Slug } from '../../../http/schemas/common.ts';
import { CreateOperatorBody, firstCredentialOf } from '../../operators/schemas.ts';
import type { OperatorAdmin } from './operator-admin.ts';
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

const OWNER_FILED = 'The operator holds owner: an approval was filed for a second owner to decide.';
const Changed = { operator: OperatorDetail };

/** Operators (docs/backoffice/people.md, "Operators"): platform operations. */
export function operatorRoutes(admin: OperatorAdmin): RouteDef[] {
  const { list, detail, action } = adminOperations({
    doc: 'docs/backoffice/people.md',
    base: '/api/admin/people/operators',
    params: { username: Username },
    read: 'operatorsRead',
    write: 'operatorsWrite',
    scope: 'platform',
  });
  // An operator's own credentials: a scoped operator changes its own too (the operation names no tenant).
  const self = { roles: 'operatorsSelf', scope: 'none' } as const;
  return [
    list('', {
      scope: 'platform',
      summary: 'Operators by username; filter by status, role, tenant scope and username prefix.',
      filters: { status: Type.Optional(OperatorStatus), role: Type.Optional(Role), q: Type.Optional(UsernamePrefix) },
      page: ['operators', OperatorRow, 'A page of operators.'],
      cursor: ['string'],
      read: ({ tenant, q, after, limit, ...filter }) =>
        admin.list({ ...filter, ...(q ? { prefix: q } : {}), ...(tenant === null ? {} : { tenant }) }, limit, after?.[0]),
      order: (op) => [op.username],
      view: (op) => op,
    }),
    action('', {
      summary:
        'Create an operator: the rules of POST /api/operators (an invitation mailed to `email`, or an enterprise `identity`; a `password` from the owner token only).',
      body: CreateOperatorBody,
      answer: [201, 'Created (status invited until its person accepts the mailed invitation).', Changed],
      refusals: {
        400: refusal(
          ['invalid_request', 'malformed_json', 'weak_password'],
          'invalid_request when not exactly one of email, identity, password.',
        ),
        403: refusal('forbidden', 'a password from an operator (no operator sets another’s), or the roles.'),
        404: 'unknown_tenant',
        409: refusal(
          ['conflict', 'identity_linked', 'approval_required'],
          'conflict: the username is taken (removed operators keep theirs); approval_required: owner given by an operator.',
        ),
        503: refusal('mail_unavailable', 'the invitation could not be mailed; nothing was created.'),
      },
      write: ({ body, principal }) => {
        const { username, roles, tenant } = body;
        const credential = firstCredentialOf(body);
        return admin.create({ username, roles, ...(tenant === undefined ? {} : { tenant }), credential }, principal);
      },
    }),
    action('/{username}/invite', {
      summary:
        'Mail a new one-time link: the invitation again to an invited operator (to `email`, which may correct its address), or a password reset to an active one.',
      body: { email: Type.Optional(EmailAddress) },
      bodyOptional: true,
      answer: [200, 'Mailed; the earlier link no longer works.', Changed],
      refusals: {
        403: refusal('forbidden', 'an active operator’s address is changed by that operator only'),
        404: 'unknown_operator',
        409: refusal('operator_state', 'suspended or removed, or active without an address'),
        503: refusal('mail_unavailable', 'nothing was changed'),
      },
      write: ({ params, body, principal }) => admin.invite(params.username, body.email, principal),
    }),
    detail('/{username}', {
      summary: 'One operator: roles, scope, status, lock, identity link, live sessions and last sign-in.',
      answer: ['The operator.', OperatorDetail],
      refusals: { 404: 'unknown_operator' },
      read: ({ params }) => admin.get(params.username),
    }),
    action('/{username}/enable', {
      summary: 'Enable a suspended operator.',
      body: {},
      bodyOptional: true,
      answer: [200, 'Enabled.', Changed],
      refusals: { 404: 'unknown_operator' },
      write: ({ params, principal }) => admin.enable(params.username, principal),
    }),
    action('/{username}/suspend', {
      summary: 'Suspend an operator: its sessions stop working; an owner is suspended once a second owner approves.',
      body: { reason: Type.Optional(Reason) },
      bodyOptional: true,
      answer: [200, 'Suspended.', Changed],
      filed: OWNER_FILED,
      refusals: { 404: 'unknown_operator', 409: refusal(['last_owner', 'conflict'], 'conflict: its roles changed meanwhile.') },
      write: ({ params, body, principal }) => admin.setStatus('suspended', params.username, principal, body.reason),
    }),
    action('/{username}/remove', {
      summary: 'Remove an operator for good; an owner is removed once a second owner approves.',
      body: { reason: Type.Optional(Reason) },
      bodyOptional: true,
      answer: [200, 'Removed.', Changed],
      filed: OWNER_FILED,
      refusals: { 404: 'unknown_operator', 409: refusal(['last_owner', 'conflict'], 'conflict: its roles changed meanwhile.') },
      write: ({ params, body, principal }) => admin.setStatus('removed', params.username, principal, body.reason),
    }),
    action('/{username}/roles', {
      summary: "Replace an operator's roles (and, when given, its tenant scope); taking owner away is filed for a second owner.",
      body: { roles: Roles, tenant: Type.Optional(Nullable(Slug)), reason: Type.Optional(Reason) },
      answer: [200, 'Changed.', Changed],
      filed: OWNER_FILED,
      refusals: {
        404: ['unknown_operator', 'unknown_tenant'],
        409: refusal(['last_owner', 'conflict'], 'conflict: its roles changed meanwhile.'),
      },
      write: ({ params: { username }, body: { roles, tenant, reason }, principal }) =>
        admin.setRoles({ username, roles, ...(tenant === undefined ? {} : { tenant }) }, principal, reason),
    }),
    action('/{username}/password', {
      ...self,
      // The current password is checked as a sign-in is: against the same budgets (docs/security.md).
      budget: { budget: 'operator-login', budgetSubject: (request) => (request.params as { username: string }).username },
      summary:
        'The operator’s own new password (proving its current one), or the owner token’s recovery; every session of the operator ends.',
      body: { password: Password, currentPassword: Type.Optional(Password) },
      answer: [200, 'Changed; the operator signs in again.', Changed],
      refusals: {
        400: ['invalid_request', 'malformed_json', 'weak_password'],
        401: refusal(['unauthorized', 'invalid_credentials'], 'invalid_credentials: currentPassword is missing or wrong.'),
        403: refusal('forbidden', 'another operator’s password (send it a reset: /invite)'),
        404: 'unknown_operator',
      },
      write: ({ params, body, principal }) => admin.setPassword(params.username, body.password, body.currentPassword, principal),
    }),
    action('/{username}/idp', {
      ...self,
      summary:
        'The operator’s own enterprise identity (issuer and subject), or unlinked with issuer null; the owner token for any operator.',
      body: { issuer: Nullable(Issuer), subject: Type.Optional(Subject) },
      answer: [200, 'Linked or unlinked.', Changed],
      refusals: {
        403: refusal('forbidden', 'another operator’s identity link'),
        404: 'unknown_operator',
        409: refusal('identity_linked', 'another operator holds this identity'),
      },
      write: ({ params, body: { issuer, subject }, principal }) => {
        if ((issuer === null) !== (subject === undefined)) {
          throw new ServiceError('invalid_request', 'issuer and subject go together; unlink with {"issuer": null} alone.');
        }
        const identity = issuer === null || subject === undefined ? null : { issuer, subject };
        return admin.setIdentity(params.username, identity, principal);
      },
    }),
  ];
}
