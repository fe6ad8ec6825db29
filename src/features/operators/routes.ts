import { Type } from '@sinclair/typebox';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { errorResponse, OPERATOR_ERRORS, Slug } from '../../http/schemas/common.ts';
import { OPERATOR_ROLES } from '../../ports/operator-store.ts';
import type { OperatorService } from './operator-service.ts';

const Username = Type.String({
  pattern: '^[a-z0-9][a-z0-9._-]{1,63}$',
  description: 'Lowercase letters, digits, dot, dash, underscore.',
});
const Roles = Type.Array(Type.Union(OPERATOR_ROLES.map((r) => Type.Literal(r))), {
  minItems: 1,
  maxItems: OPERATOR_ROLES.length,
});

const Operator = Type.Object({
  username: Type.String(),
  roles: Type.Array(Type.String()),
  tenant: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: 'active, suspended or removed' }),
});

const UNDOCUMENTED =
  'Operator console operation; the interface does not publish its response (docs/operators.md describes ours).';

const ByUsername = Type.Object({ username: Username }, { additionalProperties: false });

/** Sign-in for operators: public, exchanges a username and password for a session bearer. */
export function operatorAuthRoutes(operators: OperatorService): RouteGroup {
  return {
    name: 'operator-auth',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/api/login',
        auth: 'public',
        stability: 'unpromised',
        summary: 'Exchange operator credentials for a session bearer token.',
        body: Type.Object(
          { username: Type.String({ minLength: 1, maxLength: 64 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
          { additionalProperties: false },
        ),
        responses: {
          200: {
            description: 'A session bearer for the operator plane.',
            schema: Type.Object({
              token: Type.String(),
              tokenType: Type.Literal('Bearer'),
              expiresIn: Type.Integer({ description: 'Seconds until the session ends.' }),
              ...Operator.properties,
            }),
          },
          400: errorResponse('invalid_request or malformed_json'),
          401: errorResponse('invalid_credentials: identical for unknown user, wrong password, suspended or locked.'),
        },
        handler: async (request) => operators.login(request.body.username, request.body.password),
      }),
    ],
  };
}

/** Operator management on the console (owner only). */
export function operatorConsoleRoutes(operators: OperatorService): RouteGroup {
  const manage = (path: string, summary: string, act: typeof operators.suspend) =>
    defineRoute({
      method: 'POST',
      path,
      auth: 'operator',
      roles: ['owner'],
      scope: 'platform',
      stability: 'unpromised',
      internal: true,
      undocumented: UNDOCUMENTED,
      summary,
      body: ByUsername,
      responses: {
        200: { description: 'The operator after the change.', schema: Operator },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_operator'),
        409: errorResponse('approval_required: suspending or removing an owner needs a second owner (the back office).'),
      },
      handler: async (request) => act.call(operators, request.body.username, operatorActor(operatorOf(request))),
    });
  return {
    name: 'console-operators',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/api/operators',
        auth: 'operator',
        roles: ['owner'],
        scope: 'platform',
        stability: 'unpromised',
        internal: true,
        undocumented: UNDOCUMENTED,
        summary: 'Create an operator account.',
        body: Type.Object(
          {
            username: Username,
            password: Type.String({ maxLength: 1024 }),
            roles: Roles,
            tenant: Type.Optional(Type.Union([Slug, Type.Null()])),
          },
          { additionalProperties: false },
        ),
        responses: {
          201: { description: 'The operator was created.', schema: Operator },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_tenant'),
          409: errorResponse(
            'conflict: the username is taken; approval_required: an operator (not the owner token) gives owner.',
          ),
        },
        handler: async (request, reply) =>
          reply.code(201).send(await operators.create(request.body, operatorActor(operatorOf(request)))),
      }),
      defineRoute({
        method: 'POST',
        path: '/api/operators/roles',
        auth: 'operator',
        roles: ['owner'],
        scope: 'platform',
        stability: 'unpromised',
        internal: true,
        undocumented: UNDOCUMENTED,
        summary: "Replace an operator's roles (and, when given, its tenant scope; null makes it platform-wide).",
        body: Type.Object(
          { username: Username, roles: Roles, tenant: Type.Optional(Type.Union([Slug, Type.Null()])) },
          { additionalProperties: false },
        ),
        responses: {
          200: { description: 'The operator after the change.', schema: Operator },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_operator or unknown_tenant'),
          409: errorResponse(
            'approval_required: taking owner away, or an operator granting it, needs a second owner (the back office).',
          ),
        },
        handler: async (request) =>
          operators.setRoles(request.body.username, request.body.roles, request.body.tenant, operatorActor(operatorOf(request))),
      }),
      manage('/api/operators/suspend', 'Suspend an operator: its sessions stop working on the next call.', operators.suspend),
      manage('/api/operators/enable', 'Re-enable a suspended operator.', operators.enable),
      manage(
        '/api/operators/remove',
        'Remove an operator for good: sessions end and the username stays reserved.',
        operators.remove,
      ),
    ],
  };
}
