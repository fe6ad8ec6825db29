import { type Static, Type } from '@sinclair/typebox';
import { ServiceError } from '../../core/errors.ts';
import { EmailAddress, Narrowed, Nullable, Slug } from '../../http/schemas/common.ts';
import { OPERATOR_ROLES, type OperatorRecord } from '../../ports/operator-store.ts';
import type { FirstCredential } from './operator-credentials.ts';

/** The schemas of operator accounts (docs/operators.md), for the console and the back office alike. */

export const Username = Type.String({
  pattern: '^[a-z0-9][a-z0-9._-]{1,63}$',
  description: 'Lowercase letters, digits, dot, dash, underscore.',
});
export const Role = Type.Union(OPERATOR_ROLES.map((r) => Type.Literal(r)));
export const Roles = Type.Array(Role, { minItems: 1, maxItems: OPERATOR_ROLES.length });
export const Password = Type.String({ minLength: 1, maxLength: 1024 });
/** An OpenID issuer: an https URL without credentials, query or fragment (checked in full by the service). */
/** https; plain http only for an origin OPENRAIL_OUTBOUND_ALLOW names, which the service checks (operator-credentials.ts). */
export const Issuer = Type.String({ minLength: 9, maxLength: 255, pattern: '^https?://[^\\s?#]+$' });
/** An OpenID subject: 1 to 255 printable ASCII characters (OpenID Connect Core §2, `sub`). */
export const Subject = Type.String({ pattern: '^[\\x21-\\x7e]{1,255}$' });
export const Identity = Type.Object({ issuer: Issuer, subject: Subject }, { additionalProperties: false });

/**
 * Creating an operator: its name, roles and scope, and exactly one way for its person to sign in
 * (docs/operators.md, "Creating an operator"): `email` (an invitation is mailed there), `identity`
 * (an enterprise identity), or `password` (the owner token only).
 */
export const CreateOperatorBody = Type.Object(
  {
    username: Username,
    roles: Roles,
    tenant: Type.Optional(Nullable(Slug)),
    email: Type.Optional(EmailAddress),
    identity: Type.Optional(Identity),
    // No minimum here: an empty password is weak_password, as every short one is.
    password: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);

/** The one way to sign in a creation names; refuses none, or more than one. */
export function firstCredentialOf(body: Static<typeof CreateOperatorBody>): FirstCredential {
  const given = [
    body.email === undefined ? [] : [{ kind: 'invitation' as const, email: body.email }],
    body.identity === undefined ? [] : [{ kind: 'identity' as const, ...body.identity }],
    body.password === undefined ? [] : [{ kind: 'password' as const, password: body.password }],
  ].flat();
  const [only] = given;
  if (!only || given.length > 1) {
    throw new ServiceError(
      'invalid_request',
      'body names exactly one of email (an invitation is mailed there), identity (an enterprise identity) or password (the owner token only).',
    );
  }
  return only;
}

/**
 * An operator as every operation answers it (docs/operators.md): its name, roles, scope and status,
 * never a secret, a lock or an invitation. The document states its roles and status as strings;
 * the code holds them to their closed sets.
 */
export const OperatorView = Type.Object({
  username: Type.String(),
  roles: Narrowed<OperatorRecord['roles']>(Type.Array(Type.String())),
  tenant: Nullable(Type.String()),
  status: Narrowed<OperatorRecord['status']>(Type.String({ description: 'invited, active, suspended or removed' })),
});
export type OperatorView = Static<typeof OperatorView>;

/** The public part of an operator's record. */
export const operatorView = (op: OperatorRecord): OperatorView => ({
  username: op.username,
  roles: op.roles,
  tenant: op.tenant,
  status: op.status,
});

/** What POST /api/login answers: a session bearer, and the operator it signs in. */
export const LoginAnswer = Type.Object({
  token: Type.String(),
  tokenType: Type.Literal('Bearer'),
  expiresIn: Type.Integer({ description: 'Seconds until the session ends.' }),
  ...OperatorView.properties,
});
export type LoginAnswer = Static<typeof LoginAnswer>;

export const OperatorStatus = Type.Union([
  Type.Literal('invited'),
  Type.Literal('active'),
  Type.Literal('suspended'),
  Type.Literal('removed'),
]);
