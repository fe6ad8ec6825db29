import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ServiceError } from '../../core/errors.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { defineRoute, internalOperatorRoute, type RouteGroup } from '../../http/route.ts';
import { htmlResponse, Nullable, OPERATOR_ERRORS, refusal, Slug } from '../../http/schemas/common.ts';
import { assertSameOriginForm } from '../../web/forms.ts';
import { sendPage } from '../../web/serve.ts';
import { renderInvitationDonePage, renderInvitationPage } from './invitation-page.ts';
import type { OperatorService } from './operator-service.ts';
import { CreateOperatorBody, firstCredentialOf, LoginAnswer, OperatorView, Password, Roles, Username } from './schemas.ts';

const UNDOCUMENTED =
  'Operator console operation; the interface does not publish its response (docs/operators.md describes ours).';

const ByUsername = Type.Object({ username: Username }, { additionalProperties: false });

const HTML = htmlResponse;
const INVITATION_CODE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Sign-in for operators, public: a username and password for a session bearer, and the page where
 * an invited operator (or one sent a password reset) chooses its password.
 */
export function operatorAuthRoutes(operators: OperatorService, site: { name: string; origin: string }): RouteGroup {
  const form = (reply: FastifyReply, status: number, errors: Parameters<typeof renderInvitationPage>[1], code?: string) =>
    sendPage(reply.code(status), renderInvitationPage(site.name, errors, code), 'no-store');
  return {
    name: 'operator-auth',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/operator/invitation',
        auth: 'public',
        stability: 'unpromised',
        surface: 'page',
        undocumented: 'A page (docs/operators.md, "Invitations").',
        summary: 'The page where an invited operator, or one sent a password reset, chooses its password.',
        responses: { 200: HTML('The form: the mailed code (filled in from the link), the new password twice.') },
        handler: async (_request, reply) => sendPage(reply, renderInvitationPage(site.name), 'no-store'),
      }),
      defineRoute({
        method: 'POST',
        path: '/operator/invitation',
        auth: 'public',
        stability: 'unpromised',
        surface: 'page',
        accepts: 'form',
        budget: 'operator-invitation',
        undocumented: 'A page action (docs/operators.md, "Invitations").',
        summary: 'Spends an invitation or a password reset: the operator’s password is set, by its own person.',
        body: Type.Object(
          { code: Type.String({ maxLength: 64 }), password: Password, confirm: Type.String({ maxLength: 1024 }) },
          { additionalProperties: false },
        ),
        responses: {
          200: HTML('The password is set: the account is ready.'),
          400: HTML('The form again, naming what to change: the two passwords differ, or the password is weak.'),
          403: HTML('cross_origin_form'),
          410: HTML('invitation_unavailable: the code is unknown, used or expired (one answer for the three).'),
          429: HTML('rate_limited'),
        },
        handler: async (request, reply) => {
          assertSameOriginForm(request, site.origin);
          const { code, password, confirm } = request.body;
          const gone = 'This code is unknown, used or expired: ask whoever invited you for a new one.';
          if (!INVITATION_CODE.test(code)) return form(reply, 410, { code: gone });
          if (password !== confirm) return form(reply, 400, { confirm: 'The two passwords differ.' }, code);
          try {
            const accepted = await operators.acceptInvitation(code, password);
            return sendPage(reply, renderInvitationDonePage(site.name, accepted.username), 'no-store');
          } catch (err) {
            if (!(err instanceof ServiceError)) throw err;
            if (err.code === 'weak_password') return form(reply, 400, { password: err.message }, code);
            if (err.code === 'invitation_unavailable') return form(reply, 410, { code: gone });
            throw err;
          }
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/api/login',
        auth: 'public',
        budget: 'operator-login',
        // Counted for any username, known or not: the answer never tells which exist.
        budgetSubject: (request) => request.body.username.toLowerCase(),
        stability: 'unpromised',
        summary: 'Exchange operator credentials for a session bearer token.',
        body: Type.Object(
          { username: Type.String({ minLength: 1, maxLength: 64 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
          { additionalProperties: false, examples: [{ username: 'ada', password: 'your-password-here' }] },
        ),
        responses: {
          200: {
            description: 'A session bearer for the operator plane.',
            schema: LoginAnswer,
          },
          400: refusal(['invalid_request', 'malformed_json']),
          401: refusal('invalid_credentials', 'identical for unknown user, wrong password, suspended or locked.'),
          429: refusal(
            'rate_limited',
            'too many sign-ins from this address, for this username or on this deployment, or too many password checks waiting.',
          ),
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
      ...internalOperatorRoute(UNDOCUMENTED),
      roles: ['owner'],
      scope: 'platform',
      summary,
      body: ByUsername,
      responses: {
        200: { description: 'The operator after the change.', schema: OperatorView },
        ...OPERATOR_ERRORS,
        404: refusal('unknown_operator'),
        409: refusal('approval_required', 'suspending or removing an owner needs a second owner (the back office).'),
      },
      handler: async (request) => act.call(operators, request.body.username, operatorActor(operatorOf(request))),
    });
  return {
    name: 'console-operators',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/api/operators',
        ...internalOperatorRoute(UNDOCUMENTED),
        roles: ['owner'],
        scope: 'platform',
        summary:
          'Create an operator: an invitation mailed to `email`, or an enterprise `identity`; a first `password` from the owner token only.',
        body: CreateOperatorBody,
        responses: {
          201: { description: 'The operator was created (status invited until its person accepts).', schema: OperatorView },
          ...OPERATOR_ERRORS,
          400: refusal(
            ['invalid_request', 'malformed_json', 'weak_password'],
            'invalid_request when not exactly one of email, identity, password.',
          ),
          403: refusal('forbidden', 'a password from an operator (never another’s password), or a scoped credential.'),
          404: refusal('unknown_tenant'),
          409: refusal(
            ['conflict', 'identity_linked', 'approval_required'],
            'conflict: the username is taken; approval_required: an operator (not the owner token) gives owner.',
          ),
          503: refusal('mail_unavailable', 'the invitation could not be mailed; nothing was created.'),
        },
        handler: async (request, reply) => {
          const { username, roles, tenant } = request.body;
          const credential = firstCredentialOf(request.body);
          const made = await operators.create(
            { username, roles, ...(tenant === undefined ? {} : { tenant }), credential },
            operatorActor(operatorOf(request)),
          );
          return reply.code(201).send(made);
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/api/operators/roles',
        ...internalOperatorRoute(UNDOCUMENTED),
        roles: ['owner'],
        scope: 'platform',
        summary: "Replace an operator's roles (and, when given, its tenant scope; null makes it platform-wide).",
        body: Type.Object(
          { username: Username, roles: Roles, tenant: Type.Optional(Nullable(Slug)) },
          { additionalProperties: false },
        ),
        responses: {
          200: { description: 'The operator after the change.', schema: OperatorView },
          ...OPERATOR_ERRORS,
          404: refusal(['unknown_operator', 'unknown_tenant']),
          409: refusal(
            'approval_required',
            'taking owner away, or an operator granting it, needs a second owner (the back office).',
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
