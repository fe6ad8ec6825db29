import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServiceError } from '../../core/errors.ts';
import type { RouteDef } from '../route.ts';
import { checkDeclaredPolicy } from '../route-policy.ts';
import type { HolderPrincipal } from './holder-jws.ts';
import type { OperatorPrincipal } from './operator-bearer.ts';
import { assertOwnAccount, assertPlatformWide, assertTenantScope } from './scope.ts';

const operator = (tenant: string | null): OperatorPrincipal => ({
  plane: 'operator',
  via: 'session',
  username: 'u',
  roles: ['issuer'],
  tenant,
});

const refusedWith = (code: string) => (err: unknown) => err instanceof ServiceError && err.code === code;

test('a tenant-scoped operator acts on its own tenant only', () => {
  assert.doesNotThrow(() => assertTenantScope(operator('ghent'), 'ghent'));
  assert.throws(() => assertTenantScope(operator('ghent'), 'bruges'), refusedWith('forbidden'));
  assert.doesNotThrow(() => assertTenantScope(operator(null), 'bruges'), 'a platform operator acts on any tenant');
  assert.throws(() => assertPlatformWide(operator('ghent')), refusedWith('forbidden'));
  assert.doesNotThrow(() => assertPlatformWide(operator(null)));
});

test('a holder path names the signer, or the request is account_mismatch', () => {
  const holder: HolderPrincipal = { plane: 'holder', accountId: 'abc', jwk: {}, claims: {} };
  assert.doesNotThrow(() => assertOwnAccount(holder, 'abc'));
  assert.throws(
    () => assertOwnAccount(holder, 'abd'),
    (err: unknown) => refusedWith('account_mismatch')(err) && (err as ServiceError).status === 403,
  );
});

test('an operation keys may call must read its tenant from the request; scopes belong to the operator plane', () => {
  const route = (over: Partial<RouteDef>): RouteDef => ({
    method: 'POST',
    path: '/api/things',
    auth: 'operator',
    roles: ['owner'],
    scope: 'platform',
    stability: 'unpromised',
    summary: 'x',
    responses: {},
    handler: async () => ({}),
    ...over,
  });
  assert.throws(() => checkDeclaredPolicy(route({ scopes: ['issuance'] })), /must read its tenant/);
  assert.throws(() => checkDeclaredPolicy(route({ scope: 'none', scopes: ['issuance'] })), /must read its tenant/);
  assert.throws(
    () =>
      checkDeclaredPolicy(
        route({ auth: 'public', roles: undefined, scope: undefined, scopes: ['issuance'] } as Partial<RouteDef>),
      ),
    /operator-plane routes only/,
  );
  assert.doesNotThrow(() =>
    checkDeclaredPolicy(route({ scope: { tenantIn: 'params' }, path: '/api/{tenant}/things', scopes: ['issuance'] })),
  );
  assert.throws(
    () => checkDeclaredPolicy(route({ scope: { tenantIn: 'params' }, path: '/api/{tenant}/things', audience: '/x' })),
    /holder-plane routes only/,
  );
});
