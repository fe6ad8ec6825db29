import { Type } from '@sinclair/typebox';
import { adminRoute } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteDef } from '../../../http/route.ts';
import { AdminMutation, DisplayText, OPERATOR_ERRORS } from '../../../http/schemas/common.ts';
import { Username } from '../orgs/schemas.ts';
import { type Accountability, attestationView, roleChangeView } from './accountability.ts';
import { complianceOperations } from './routes-common.ts';
import { AttestationView, RoleChangeView, RoleSeparationView, StatementId, StatementVersion } from './schemas.ts';

/** Attestations, role history and the separation-of-duties report (docs/backoffice/compliance.md). */
export function accountabilityRoutes(accountability: Accountability): RouteDef[] {
  const { list, detail } = complianceOperations;
  return [
    defineRoute({
      ...adminRoute('docs/backoffice/compliance.md'),
      method: 'POST',
      path: '/api/admin/compliance/accountability/attest',
      roles: ROLE_MATRIX.attest,
      scope: 'none',
      summary: 'Attest, as the calling operator, a version of one of the deployment’s statements.',
      body: Type.Object(
        { statementId: StatementId, version: StatementVersion, note: Type.Optional(DisplayText(500)) },
        { additionalProperties: false },
      ),
      responses: {
        201: { description: 'Attested.', schema: AdminMutation({ attestation: AttestationView, created: Type.Literal(true) }) },
        200: {
          description: 'Attested before: the first attestation and its audit entry.',
          schema: AdminMutation({ attestation: AttestationView, created: Type.Literal(false) }),
        },
        ...OPERATOR_ERRORS,
      },
      handler: async (request, reply) => {
        const principal = operatorOf(request);
        const made = await accountability.attest(request.body, principal, operatorActor(principal));
        return made.created ? reply.code(201).send(made) : made;
      },
    }),
    list('/accountability/attestations', {
      tenanted: false,
      summary: 'Attestations, newest first; by operator or statement.',
      filters: { operator: Type.Optional(Username), statementId: Type.Optional(StatementId) },
      page: ['attestations', AttestationView, 'A page of attestations.'],
      cursor: ['number', 'string'],
      read: ({ operator, statementId, ...window }) => accountability.attestations({ username: operator, statementId }, window),
      order: (a) => [a.attestedAt, a.id],
      view: attestationView,
    }),
    list('/accountability/role-history', {
      tenanted: false,
      summary: 'Who was given, changed or lost which roles, and by whom: from the audit chain, newest first.',
      filters: { operator: Type.Optional(Username) },
      page: ['changes', RoleChangeView, 'A page of role changes.'],
      cursor: ['number'],
      read: ({ operator, ...window }) => accountability.roleHistory(operator, window),
      order: (r) => [r.seq],
      view: roleChangeView,
    }),
    detail('/accountability/role-separation', {
      summary: 'The separation-of-duties report: roles one person holds that should be split, and pairs who approve each other.',
      answer: ['The report.', RoleSeparationView],
      read: () => accountability.roleSeparation(),
    }),
  ];
}
