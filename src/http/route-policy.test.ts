/**
 * The route policy (route-policy.ts) one rule at a time: what a declaration must say, and who is
 * admitted before and after the body is read. Each case names the principal, the route and the
 * request, and whether it passes; a rule loosened or removed lets one of the refused cases through.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ServiceError } from '../core/errors.ts';
import type { HolderPrincipal } from './auth/holder-jws.ts';
import type { OperatorPrincipal } from './auth/operator-bearer.ts';
import type { RouteDef } from './route.ts';
import { checkDeclaredPolicy, enforceBeforeBody, enforceBodyTenant, enforceNamedTenant } from './route-policy.ts';

const route = (over: Partial<RouteDef> = {}): RouteDef => ({
  method: 'POST',
  path: '/api/{tenant}/things',
  auth: 'operator',
  roles: ['issuer'],
  scope: { tenantIn: 'params' },
  stability: 'unpromised',
  summary: 'x',
  responses: {},
  handler: async () => ({}),
  ...over,
});

const operator = (tenant: string | null, over: Partial<OperatorPrincipal> = {}): OperatorPrincipal => ({
  plane: 'operator',
  via: 'session',
  username: 'u',
  roles: ['issuer'],
  tenant,
  ...over,
});
const key = (tenant: string, scopes: string[]): OperatorPrincipal =>
  operator(tenant, {
    via: 'integration-token',
    username: null,
    roles: [],
    key: { id: 'k', scopes, rateClass: 'standard' } as never,
  });
const partner = (tenant: string | null): OperatorPrincipal =>
  operator(tenant, {
    via: 'partner-session',
    username: null,
    roles: ['partner-admin'],
    partner: { applicationId: 'app', memberId: 'm', email: 'p@example.test', grant: null } as never,
  });
const holder: HolderPrincipal = { plane: 'holder', accountId: 'abc', jwk: {}, claims: {} };

const request = (
  principal: unknown,
  parts: { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown } = {},
) => ({ principal, params: parts.params ?? {}, query: parts.query ?? {}, body: parts.body }) as unknown as FastifyRequest;

const forbidden = (err: unknown) => err instanceof ServiceError && err.status === 403;

describe('a declaration leaves no policy open', () => {
  const refusals: Array<[string, Partial<RouteDef>, RegExp]> = [
    ['an audience off the holder plane', { audience: '/x' }, /audience belongs to holder-plane/],
    ['a bearer cookie on an api route', { bearerCookie: 'c', surface: 'api' } as never, /bearer cookie belongs/],
    ['a bearer cookie on the holder plane', { auth: 'holder', bearerCookie: 'c', surface: 'page' } as never, /bearer cookie/],
    ['roles off the operator plane', { auth: 'public', scope: undefined }, /belong to operator-plane routes only/],
    ['a scope off the operator plane', { auth: 'public', roles: undefined }, /belong to operator-plane routes only/],
    [
      'scopes off the operator plane',
      { auth: 'public', roles: undefined, scope: undefined, scopes: ['issuance'] } as never,
      /belong to operator-plane/,
    ],
    ['no roles', { roles: undefined }, /must declare its roles/],
    ['empty roles', { roles: [] }, /must declare its roles/],
    ['no scope', { scope: undefined }, /must declare its tenant scope/],
    ['key scopes on a platform operation', { scope: 'platform', scopes: ['issuance'] } as never, /must read its tenant/],
    ['key scopes on a scope-less operation', { scope: 'none', scopes: ['issuance'] } as never, /must read its tenant/],
    ['scope none with a tenant in the path', { scope: 'none' }, /names a tenant/],
    [
      'scope none with a tenant in the body',
      { scope: 'none', path: '/api/x', body: Type.Object({ tenant: Type.String() }) },
      /names a tenant/,
    ],
    [
      'scope none with a tenant in the query',
      { scope: 'none', path: '/api/x', querystring: Type.Object({ tenant: Type.String() }) },
      /names a tenant/,
    ],
    ['a params scope the path lacks', { path: '/api/things' }, /reads params.tenant/],
    ['a params field the path lacks', { scope: { tenantIn: 'params', field: 'slug' } }, /reads params.slug/],
    [
      'a body scope the body lacks',
      { scope: { tenantIn: 'body' }, body: Type.Object({ other: Type.String() }) },
      /reads body.tenant/,
    ],
    ['a query scope the query lacks', { scope: { tenantIn: 'query' }, querystring: Type.Object({}) }, /reads query.tenant/],
    [
      'a query scope read from the body',
      { scope: { tenantIn: 'query' }, body: Type.Object({ tenant: Type.String() }) },
      /reads query/,
    ],
  ];
  for (const [name, over, message] of refusals) {
    test(`refused at start: ${name}`, () => assert.throws(() => checkDeclaredPolicy(route(over)), message));
  }

  const accepted: Array<[string, Partial<RouteDef>]> = [
    ['a params scope', {}],
    ['a params scope on another field', { path: '/api/{slug}/things', scope: { tenantIn: 'params', field: 'slug' } }],
    ['a body scope', { path: '/api/x', scope: { tenantIn: 'body' }, body: Type.Object({ tenant: Type.String() }) }],
    ['a query scope', { path: '/api/x', scope: { tenantIn: 'query' }, querystring: Type.Object({ tenant: Type.String() }) }],
    ['a platform operation naming a tenant', { scope: 'platform' }],
    ['a scope-less operation naming none', { path: '/api/x', scope: 'none' }],
    ['a holder route with an audience', { auth: 'holder', roles: undefined, scope: undefined, audience: '/x' }],
    ['a public route', { auth: 'public', roles: undefined, scope: undefined }],
    ['an operator page with a bearer cookie', { surface: 'page', bearerCookie: 'c' } as never],
  ];
  for (const [name, over] of accepted) {
    test(`accepted: ${name}`, () => assert.doesNotThrow(() => checkDeclaredPolicy(route(over))));
  }
});

describe('before the body: roles, key scopes, the tenant of the path or query, the own account', () => {
  test('a holder path names the signer; a holder route without an account passes', () => {
    const r = route({ auth: 'holder', roles: undefined, scope: undefined });
    assert.doesNotThrow(() => enforceBeforeBody(r, request(holder, { params: { accountId: 'abc' } })));
    assert.throws(() => enforceBeforeBody(r, request(holder, { params: { accountId: 'abd' } })), forbidden);
    assert.doesNotThrow(() => enforceBeforeBody(r, request(holder)));
  });

  test('roles: any one admits, none refuses', () => {
    const r = route({ roles: ['owner', 'issuer'] });
    assert.doesNotThrow(() => enforceBeforeBody(r, request(operator(null, { roles: ['issuer'] }), { params: { tenant: 't' } })));
    assert.throws(
      () => enforceBeforeBody(r, request(operator(null, { roles: ['auditor'] }), { params: { tenant: 't' } })),
      forbidden,
    );
    assert.throws(() => enforceBeforeBody(r, request(operator(null, { roles: [] }), { params: { tenant: 't' } })), forbidden);
  });

  test('a key passes on its scopes, never on roles, and never where the route takes no key', () => {
    const r = route({ scopes: ['issuance', 'status'] as never });
    assert.doesNotThrow(() => enforceBeforeBody(r, request(key('t', ['status']), { params: { tenant: 't' } })));
    assert.throws(
      () => enforceBeforeBody(r, request(key('t', ['verification']), { params: { tenant: 't' } })),
      /needs one of: issuance, status/,
    );
    assert.throws(() => enforceBeforeBody(route(), request(key('t', ['issuance']), { params: { tenant: 't' } })), /cannot call/);
    const withRoles = { ...key('t', []), roles: ['issuer'] } as OperatorPrincipal;
    assert.throws(() => enforceBeforeBody(r, request(withRoles, { params: { tenant: 't' } })), forbidden);
  });

  test('a platform operation: platform-wide credentials only, never a partner session', () => {
    const r = route({ scope: 'platform' });
    assert.doesNotThrow(() => enforceBeforeBody(r, request(operator(null))));
    assert.throws(() => enforceBeforeBody(r, request(operator('t'))), forbidden);
    assert.throws(() => enforceBeforeBody(r, request({ ...partner(null), roles: ['issuer'] })), forbidden);
  });

  test('the tenant in the path or the query is the credential’s own', () => {
    for (const [tenantIn, part] of [
      ['params', 'params'],
      ['query', 'query'],
    ] as const) {
      const r = route({ scope: { tenantIn } });
      assert.doesNotThrow(() => enforceBeforeBody(r, request(operator('t'), { [part]: { tenant: 't' } })), tenantIn);
      assert.throws(() => enforceBeforeBody(r, request(operator('t'), { [part]: { tenant: 'u' } })), forbidden, tenantIn);
      assert.throws(() => enforceBeforeBody(r, request(operator('t'))), /name it/, tenantIn);
      assert.doesNotThrow(() => enforceBeforeBody(r, request(operator(null), { [part]: { tenant: 'u' } })), tenantIn);
    }
    const slug = route({ scope: { tenantIn: 'params', field: 'slug' } });
    assert.throws(() => enforceBeforeBody(slug, request(operator('t'), { params: { tenant: 't', slug: 'u' } })), forbidden);
    assert.doesNotThrow(() => enforceBeforeBody(slug, request(operator('t'), { params: { tenant: 'u', slug: 't' } })));
  });

  test('a list may leave its tenant out (it lists the credential’s own), but not name another', () => {
    const r = route({ scope: { tenantIn: 'query', list: true } });
    assert.doesNotThrow(() => enforceBeforeBody(r, request(operator('t'))));
    assert.throws(() => enforceBeforeBody(r, request(operator('t'), { query: { tenant: 'u' } })), forbidden);
    assert.throws(() => enforceBeforeBody(r, request(operator('t'), { query: { tenant: null } })), /name it/);
    const notList = route({ scope: { tenantIn: 'query' } });
    assert.throws(() => enforceBeforeBody(notList, request(operator('t'))), /name it/);
  });

  test('other planes than the holder and operator planes pass: their routes carry no roles or tenant', () => {
    const account = { plane: 'account-session', accountId: 'a', session: 's' };
    const r = route({ auth: 'account' as never, roles: undefined, scope: undefined });
    assert.doesNotThrow(() => enforceBeforeBody(r, request(account, { params: { tenant: 'u', accountId: 'b' } })));
  });

  test('a scope-less operation admits any operator whatever its request names', () => {
    const r = route({ path: '/api/x', scope: 'none' });
    assert.doesNotThrow(() => enforceBeforeBody(r, request(operator('t'), { query: { tenant: 'u' }, params: { tenant: 'u' } })));
    assert.doesNotThrow(() => enforceBodyTenant(r, request(operator('t'), { body: { tenant: 'u' } })));
  });

  test('an operator route declared without roles admits no one', () => {
    const r = route({ roles: undefined });
    assert.throws(
      () => enforceBeforeBody(r, request(operator(null, { roles: ['owner'] }), { params: { tenant: 't' } })),
      forbidden,
    );
  });

  test('a body scope is not read before the body', () => {
    const r = route({ scope: { tenantIn: 'body' } });
    assert.doesNotThrow(() => enforceBeforeBody(r, request(operator('t'), { params: { tenant: 'u' } })));
  });

  test('a partner session acts on its partner’s tenant, and on none before it is linked', () => {
    const r = route({ roles: ['partner-admin'] as never });
    assert.doesNotThrow(() => enforceBeforeBody(r, request(partner('t'), { params: { tenant: 't' } })));
    assert.throws(() => enforceBeforeBody(r, request(partner('t'), { params: { tenant: 'u' } })), forbidden);
    assert.throws(() => enforceBeforeBody(r, request(partner(null), { params: { tenant: 'u' } })), /partner's tenant only/);
    assert.throws(() => enforceBeforeBody(r, request(partner(null))), /has none yet/);
  });
});

describe('the body: the tenant it names, before and after validation', () => {
  const r = route({ path: '/api/x', scope: { tenantIn: 'body' }, body: Type.Object({ tenant: Type.String() }) });

  test('a named tenant must be the credential’s own, before validation', () => {
    assert.doesNotThrow(() => enforceNamedTenant(r, request(operator('t'), { body: { tenant: 't' } })));
    assert.throws(() => enforceNamedTenant(r, request(operator('t'), { body: { tenant: 'u' } })), forbidden);
    // Not named (or not a string): left to validation, which requires it.
    assert.doesNotThrow(() => enforceNamedTenant(r, request(operator('t'), { body: {} })));
    assert.doesNotThrow(() => enforceNamedTenant(r, request(operator('t'), { body: { tenant: 7 } })));
    assert.doesNotThrow(() => enforceNamedTenant(r, request(operator(null), { body: { tenant: 'u' } })));
  });

  test('after validation a scoped credential’s body must name its tenant, whatever the schema says', () => {
    assert.doesNotThrow(() => enforceBodyTenant(r, request(operator('t'), { body: { tenant: 't' } })));
    assert.throws(() => enforceBodyTenant(r, request(operator('t'), { body: { tenant: 'u' } })), forbidden);
    for (const body of [{}, null, [], 'tenant', { tenant: 7 }, undefined]) {
      assert.throws(() => enforceBodyTenant(r, request(operator('t'), { body })), /name it/, JSON.stringify(body));
    }
    assert.doesNotThrow(() => enforceBodyTenant(r, request(operator(null), { body: {} })), 'a platform credential names none');
    const field = route({ path: '/api/x', scope: { tenantIn: 'body', field: 'org' }, body: Type.Object({ org: Type.String() }) });
    assert.throws(() => enforceBodyTenant(field, request(operator('t'), { body: { tenant: 't', org: 'u' } })), forbidden);
    assert.doesNotThrow(() => enforceBodyTenant(field, request(operator('t'), { body: { tenant: 'u', org: 't' } })));
  });

  test('only body-scoped operator routes read the body’s tenant', () => {
    const body = { tenant: 'u' };
    assert.doesNotThrow(() => enforceBodyTenant(route(), request(operator('t'), { body, params: { tenant: 't' } })));
    assert.doesNotThrow(() => enforceBodyTenant(route({ scope: 'none', path: '/api/x' }), request(operator('t'), { body })));
    assert.doesNotThrow(() => enforceNamedTenant(route({ scope: 'platform' }), request(operator('t'), { body })));
    const holderRoute = route({ auth: 'holder', roles: undefined, scope: { tenantIn: 'body' } });
    assert.doesNotThrow(() => enforceBodyTenant(holderRoute, request(holder, { body })));
    assert.doesNotThrow(() => enforceNamedTenant(holderRoute, request(holder, { body })));
    const unscoped = route({ auth: 'public', roles: undefined, scope: undefined });
    assert.doesNotThrow(() => enforceBodyTenant(unscoped, request(holder, { body })));
  });

  test('a partner session not yet linked names no tenant in a body', () => {
    assert.throws(() => enforceBodyTenant(r, request(partner(null), { body: { tenant: 'u' } })), /partner's tenant only/);
    assert.throws(() => enforceNamedTenant(r, request(partner(null), { body: { tenant: 'u' } })), /partner's tenant only/);
    assert.throws(() => enforceBodyTenant(r, request(partner(null), { body: {} })), /has none yet/);
    assert.doesNotThrow(() => enforceBodyTenant(r, request(partner('t'), { body: { tenant: 't' } })));
  });
});
