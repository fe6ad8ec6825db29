import { Type } from '@sinclair/typebox';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import { ListPage, PageQuery, pageParams } from '../../../http/list.ts';
import { defineRoute, type RouteDef } from '../../../http/route.ts';
import { AdminMutation, DisplayText, OPERATOR_ERRORS } from '../../../http/schemas/common.ts';
import { Username } from '../orgs/schemas.ts';
import type { Accountability } from './accountability.ts';
import { BASE, platformRoute } from './routes-common.ts';
import { AttestationView, RoleChangeView, RoleSeparationView, StatementId, StatementVersion } from './schemas.ts';

/** Attestations, role history and the separation-of-duties report (docs/backoffice/compliance.md). */
export function accountabilityRoutes(accountability: Accountability): RouteDef[] {
  const common = platformRoute;
  return [
    defineRoute({
      ...platformRoute,
      method: 'POST',
      path: `${BASE}/accountability/attest`,
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
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/accountability/attestations`,
      roles: ROLE_MATRIX.complianceRead,
      summary: 'Attestations, newest first; by operator or statement.',
      querystring: PageQuery({ operator: Type.Optional(Username), statementId: Type.Optional(StatementId) }),
      responses: {
        200: { description: 'A page of attestations.', schema: ListPage('attestations', AttestationView) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) =>
        accountability.attestations(
          { username: request.query.operator, statementId: request.query.statementId },
          pageParams(request.query),
        ),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/accountability/role-history`,
      roles: ROLE_MATRIX.complianceRead,
      summary: 'Who was given, changed or lost which roles, and by whom: from the audit chain, newest first.',
      querystring: PageQuery({ operator: Type.Optional(Username) }),
      responses: {
        200: { description: 'A page of role changes.', schema: ListPage('changes', RoleChangeView) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) => accountability.roleHistory({ username: request.query.operator }, pageParams(request.query)),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/accountability/role-separation`,
      roles: ROLE_MATRIX.complianceRead,
      summary: 'The separation-of-duties report: roles one person holds that should be split, and pairs who approve each other.',
      responses: { 200: { description: 'The report.', schema: RoleSeparationView }, ...OPERATOR_ERRORS },
      handler: async () => accountability.roleSeparation(),
    }),
  ];
}
