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
  const login = await app.inject({ method: 'POST', url: '/api/login', payload: { username, password } });
  assert.equal(login.statusCode, 200, login.body);
  return bearer(login.json().token);
}
