import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { bearer, owner } from './rail.ts';

/**
 * Creates an operator through POST /api/operators (with the owner token) and signs it in through
 * POST /api/login: the bearer headers of a real operator session with these roles and scope.
 */
export async function signedInOperator(
  app: FastifyInstance,
  username: string,
  roles: readonly string[],
  tenant?: string,
): Promise<{ authorization: string }> {
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const made = await app.inject({
    method: 'POST',
    url: '/api/operators',
    headers: owner,
    payload: { username, password, roles, ...(tenant === undefined ? {} : { tenant }) },
  });
  assert.equal(made.statusCode, 201, made.body);
  // Each operator signs in from a machine of its own: sign-ins are budgeted per calling address.
  const login = await app.inject({
    method: 'POST',
    url: '/api/login',
    payload: { username, password },
    remoteAddress: operatorAddress(),
  });
  assert.equal(login.statusCode, 200, login.body);
  return bearer(login.json().token);
}

let addresses = 0;
/** A documentation address (RFC 5737 TEST-NET-2) of its own for each sign-in. */
export function operatorAddress(): string {
  addresses++;
  return `198.51.100.${addresses % 250}`;
}
