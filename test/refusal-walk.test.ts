/**
 * Walks every operation of the route table on the operator and holder planes, generated from the
 * table itself, so a new operation is walked the day it is declared: without a credential, with
 * each other plane's credential, with a role it does not admit, and as a credential scoped to
 * another tenant (or another account). Each answers the refusal its declaration documents, and
 * nothing in the database changes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { defineModule } from '../src/app/module.ts';
import type { ErrorCode } from '../src/core/errors.ts';
import { holderOf } from '../src/http/auth/holder-jws.ts';
import { defineRoute, type RouteDef } from '../src/http/route.ts';
import { refusal } from '../src/http/schemas/common.ts';
import { OPERATOR_ROLES } from '../src/ports/operator-store.ts';
import { type TestDatabase, testDatabases } from './helpers/databases.ts';
import { holderJws, newHolderKey } from './helpers/holder.ts';
import { accessToken, createOffer } from './helpers/issuance.ts';
import { livePartnerSession } from './helpers/partners.ts';
import { bearer, owner, PUBLIC_URL, startRail, type TestRail } from './helpers/rail.ts';

/** A holder-plane operation served only here, until the wallet module brings real ones. */
const probeModule = defineModule({
  name: 'probe',
  groups: ['probe'],
  build: () => ({
    services: {},
    routes: () => [
      {
        name: 'probe',
        routes: [
          defineRoute({
            method: 'POST',
            path: '/test/holder/{accountId}/echo',
            auth: 'holder',
            stability: 'unpromised',
            summary: 'Answers the signer: a holder-plane operation for the refusal walk.',
            params: Type.Object({ accountId: Type.String({ maxLength: 64 }) }),
            body: Type.Object({ note: Type.String({ maxLength: 10 }) }, { additionalProperties: false }),
            responses: {
              200: { description: 'The signer.', schema: Type.Object({ accountId: Type.String() }) },
              401: refusal('unauthorized'),
              403: refusal('account_mismatch'),
            },
            handler: async (request) => ({ accountId: holderOf(request).accountId }),
          }),
        ],
      },
    ],
  }),
});

const PARAMS: Record<string, string> = {
  tenant: 'beta',
  slug: 'beta',
  accountId: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
  itemId: 'item-1',
  username: 'nobody',
};
const fill = (path: string) => path.replace(/\{([^}]+)\}/g, (_m, name: string) => PARAMS[name] ?? `p-${name}`);

/** Every table's row count: what a refusal must leave as it found it. */
async function snapshot(rail: TestRail, postgres: boolean): Promise<Record<string, number>> {
  const tables = postgres
    ? await sql<{
        name: string;
      }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(rail.db)
    : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(rail.db);
  const out: Record<string, number> = {};
  for (const { name } of tables.rows.sort((a, b) => a.name.localeCompare(b.name))) {
    if (name.startsWith('kysely_') || name.startsWith('sqlite_')) continue;
    const row = await sql<{ n: number }>`select count(*) as n from ${sql.table(name)}`.execute(rail.db);
    out[name] = Number(row.rows[0]?.n);
  }
  return out;
}

for (const factory of testDatabases()) {
  describe(`every operator- and holder-plane operation refuses whoever it does not admit (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let routes: RouteDef[];
    /** A platform-wide operator holding only this role, by role. */
    const onlyRole = new Map<string, Record<string, string>>();
    /** Operators scoped to tenant alpha, holding every role. */
    let scopedToAlpha: Record<string, string>;
    let token: string;
    let resultToken: string;

    const post = (url: string, payload: unknown, headers: Record<string, string> = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });

    async function signIn(username: string, roles: string[], tenant: string | null): Promise<Record<string, string>> {
      const password = `pw-${randomBytes(12).toString('hex')}`;
      assert.equal((await post('/api/operators', { username, password, roles, tenant })).statusCode, 201);
      const login = await post('/api/login', { username, password }, {});
      assert.equal(login.statusCode, 200, login.body);
      return bearer(login.json().token);
    }

    before(async () => {
      db = await factory.create();
      // No background job may change a row while the walk compares before and after.
      rail = await startRail(db, {}, undefined, { runJobs: false, extraModules: [probeModule] });
      routes = rail.routes.flatMap((g) => g.routes).filter((r) => r.auth === 'operator' || r.auth === 'holder');
      for (const name of ['Alpha', 'Beta']) assert.equal((await post('/api/tenants', { name })).statusCode, 201);
      for (const role of OPERATOR_ROLES) onlyRole.set(role, await signIn(`only-${role}`, [role], null));
      scopedToAlpha = await signIn('alpha-all', [...OPERATOR_ROLES], 'alpha');
      const type = await post('/api/types', { tenant: 'alpha', name: 'Card', claims: ['name'] });
      const offer = await createOffer(rail.app, { tenant: 'alpha', typeId: type.json().typeId, subject: { name: 'x' } });
      token = (await accessToken(rail.app, 'alpha', offer.code)).access_token;
      resultToken = (
        await post(
          '/verify/request',
          { vct: type.json().vct, claims: ['name'], nonce: randomBytes(18).toString('base64url'), aud: 'https://rp.example' },
          {},
        )
      ).json().resultToken;
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    /** Sends the operation with `headers` and a body naming tenant beta (where it takes one). */
    /** The route's path, and for one reading its tenant from the query, that tenant: beta. */
    const urlOf = (route: RouteDef) =>
      typeof route.scope === 'object' && route.scope.tenantIn === 'query'
        ? `${fill(route.path)}?${route.scope.field ?? 'tenant'}=beta`
        : fill(route.path);
    const call = (route: RouteDef, headers: Record<string, string>) =>
      rail.app.inject({
        method: route.method,
        url: urlOf(route),
        headers: { ...headers, ...(route.body ? { 'content-type': 'application/json' } : {}) },
        ...(route.body ? { payload: JSON.stringify({ tenant: 'beta' }) } : {}),
      });

    /** Asserts the answer is the refusal `status` with `code`, and that the operation documents it by that code. */
    function refused(route: RouteDef, res: { statusCode: number; body: string }, status: number, code: string, why: string) {
      const what = `${route.method} ${route.path} ${why}: ${res.statusCode} ${res.body}`;
      assert.equal(res.statusCode, status, what);
      const body = JSON.parse(res.body) as { error?: string };
      assert.equal(body.error, code, what);
      assert.ok(route.responses[status], `${route.method} ${route.path} does not document its ${status}`);
      assert.ok(
        route.responses[status]?.codes?.includes(code as ErrorCode),
        `${route.method} ${route.path} does not name ${code} among its ${status} refusals`,
      );
    }

    test('the walk covers the operator plane and the holder plane', () => {
      assert.ok(routes.filter((r) => r.auth === 'operator').length >= 10, `${routes.length} operations`);
      assert.ok(routes.some((r) => r.auth === 'holder'));
    });

    test('no credential, or the credential of another plane: 401 with a challenge', async () => {
      const before = await snapshot(rail, factory.name === 'postgres');
      for (const route of routes) {
        const others: Array<[string, Record<string, string>]> =
          route.auth === 'operator'
            ? [
                ['holder JWS', { authorization: `Holder ${await holderJws({ aud: PUBLIC_URL })}` }],
                ['OID4VCI access token', bearer(token)],
                ['result token', bearer(resultToken)],
              ]
            : [
                ['operator bearer', owner],
                ['OID4VCI access token', bearer(token)],
              ];
        for (const [why, headers] of [['no credential', {}] as [string, Record<string, string>], ...others]) {
          const res = await call(route, headers);
          if (route.onRefusal) {
            // A browser page that answers its refusals itself: a 401 page (the account portal's
            // handoff) or a 303 to its sign-in page (the partner portal); nothing stored.
            const what = `${route.method} ${route.path} with ${why}: ${res.statusCode}`;
            if (res.statusCode === 303) assert.match(String(res.headers.location), /^\/[a-z]+\/signin$/, what);
            else {
              assert.equal(res.statusCode, 401, what);
              assert.match(String(res.headers['content-type']), /^text\/html/);
            }
            continue;
          }
          refused(route, res, 401, 'unauthorized', `with ${why}`);
          assert.match(String(res.headers['www-authenticate']), route.auth === 'operator' ? /^Bearer / : /^Holder /);
        }
      }
      assert.deepEqual(await snapshot(rail, factory.name === 'postgres'), before);
    });

    test('an operator without any role the operation admits: 403 forbidden', async () => {
      const before = await snapshot(rail, factory.name === 'postgres');
      for (const route of routes.filter((r) => r.auth === 'operator')) {
        const role = OPERATOR_ROLES.find((r) => !route.roles?.includes(r));
        assert.ok(role, `${route.path} admits every role`);
        const res = await call(route, onlyRole.get(role) ?? {});
        if (route.onRefusal) {
          // A page answers the refusal with its error page.
          assert.equal(res.statusCode, 403, `${route.method} ${route.path} as ${role}`);
          assert.match(String(res.headers['content-type']), /^text\/html/);
          continue;
        }
        refused(route, res, 403, 'forbidden', `as ${role}`);
      }
      assert.deepEqual(await snapshot(rail, factory.name === 'postgres'), before);
    });

    test('a partner session: 403 on every operator operation that is not its team’s', async () => {
      const partner = (await livePartnerSession(rail.db, { tenant: 'alpha' })).bearer;
      const before = await snapshot(rail, factory.name === 'postgres');
      let walked = 0;
      for (const route of routes.filter((r) => r.auth === 'operator' && !r.roles?.some((role) => role.startsWith('partner-')))) {
        const res = await call(route, partner);
        if (route.onRefusal) assert.equal(res.statusCode, 403, `${route.method} ${route.path}`);
        else refused(route, res, 403, 'forbidden', 'as a partner session');
        walked++;
      }
      assert.ok(walked >= 50, `${walked} operations`);
      assert.deepEqual(await snapshot(rail, factory.name === 'postgres'), before);
    });

    test('a credential scoped to another tenant, on a tenant or platform operation: 403 forbidden', async () => {
      const before = await snapshot(rail, factory.name === 'postgres');
      let walked = 0;
      for (const route of routes.filter((r) => r.auth === 'operator' && r.scope !== 'none')) {
        refused(route, await call(route, scopedToAlpha), 403, 'forbidden', 'scoped to alpha, acting on beta');
        walked++;
      }
      assert.ok(walked >= 8, `${walked} operations`);
      assert.deepEqual(await snapshot(rail, factory.name === 'postgres'), before);
    });

    test('a scoped credential whose body names no tenant fails closed', async () => {
      const before = await snapshot(rail, factory.name === 'postgres');
      for (const route of routes.filter((r) => typeof r.scope === 'object' && r.scope.tenantIn === 'body')) {
        for (const payload of ['{}', '[]', '{"tenant": 7}']) {
          const res = await rail.app.inject({
            method: route.method,
            url: fill(route.path),
            headers: { ...scopedToAlpha, 'content-type': 'application/json' },
            payload,
          });
          refused(route, res, 400, 'invalid_request', `scoped, with body ${payload}`);
        }
      }
      assert.deepEqual(await snapshot(rail, factory.name === 'postgres'), before);
    });

    test('a holder signing for another account: 403 account_mismatch, and its jti is not spent', async () => {
      const before = await snapshot(rail, factory.name === 'postgres');
      const key = await newHolderKey();
      for (const route of routes.filter((r) => r.auth === 'holder' && r.path.includes('{accountId}'))) {
        const jws = await holderJws({ aud: PUBLIC_URL }, { key });
        const res = await call(route, { authorization: `Holder ${jws}` });
        refused(route, res, 403, 'account_mismatch', 'for another account');
      }
      assert.deepEqual(await snapshot(rail, factory.name === 'postgres'), before);
    });
  });
}
