/**
 * The back office's role matrix, operation by operation (docs/backoffice.md, "Roles"): generated
 * from the contract document the service serves, so a route added to a back-office group is walked
 * without anyone listing it. Each role gets exactly what its route declares: a role the route does
 * not name is refused with `403 forbidden` before its input is read, a named role is admitted. The
 * legacy `issuer` and `verifier` are named by no route under /api/admin/*. An admitted read
 * answers 200 (or 404 for the well-formed ids the walk makes up). A `tenant-admin` is
 * scoped to one tenant: admitted where the route reads that tenant, refused on platform operations.
 * A second pass checks the declarations themselves against ROLE_MATRIX.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROLE_MATRIX } from '../src/http/admin/role-matrix.ts';
import { OPERATOR_ROLES } from '../src/ports/operator-store.ts';
import { type TestDatabase, testDatabases } from './helpers/databases.ts';
import { signedInOperator } from './helpers/operators.ts';
import { owner, startRail, type TestRail } from './helpers/rail.ts';

const TENANT = 'alpha';
const OTHER = 'beta';
const METHODS = ['get', 'post'];

interface Operation {
  method: 'GET' | 'POST';
  path: string;
  roles: string[];
  scope: string;
}

const ACCOUNT = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
const unknownId = (prefix: string) => `${prefix}_${'A'.repeat(22)}`;

/** A value for each path parameter: real where a real one is cheap, else well-formed and unknown. */
const PATH_VALUES: Record<string, string> = {
  slug: TENANT,
  tenant: TENANT,
  seq: '1',
  username: 'as-owner',
  statusIndex: '0',
  subject: ACCOUNT,
  approvalId: unknownId('apr'),
  incidentId: unknownId('inc'),
  deliveryId: unknownId('dlv'),
  requestId: unknownId('prv'),
  webhookId: unknownId('whk'),
  tokenId: unknownId('itk'),
  id: unknownId('pap'),
  depositId: 'no-such-deposit',
  issuerDid: 'did:web:rail.example.test:t:no-such-tenant',
};

/** The query a read needs beyond its path (a tenant it names is the scoped operator's own). */
const QUERIES: Record<string, string> = {
  '/api/admin/credential': `tenant=${TENANT}&credentialId=crd_unknown`,
  '/api/admin/credential-type': `tenant=${TENANT}&typeId=no-such-type`,
  '/api/admin/holder': `accountId=${ACCOUNT}`,
  '/api/admin/search': 'q=alpha',
  '/api/admin/support/lookup': 'q=alpha',
  '/api/admin/support/credential/{statusIndex}': `tenant=${TENANT}`,
  '/api/admin/integration/deposits': `tenant=${TENANT}`,
  '/api/admin/integration/deposits/{depositId}': `tenant=${TENANT}`,
};

/** Where a parameter's name means another kind of id under a path. */
const PATH_VALUES_UNDER: ReadonlyArray<[string, Record<string, string>]> = [
  ['/api/admin/compliance/erasure/', { requestId: unknownId('erq') }],
];

function urlOf(op: Operation, scoped: boolean): string {
  const values = { ...PATH_VALUES, ...PATH_VALUES_UNDER.find(([prefix]) => op.path.startsWith(prefix))?.[1] };
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? 'x0000000000000000000000');
  const query = op.method === 'GET' ? QUERIES[op.path] : undefined;
  if (query) return `${path}?${query}`;
  // A scoped credential names its tenant where the route reads it from the query.
  return scoped && op.scope === 'query.tenant' ? `${path}?tenant=${TENANT}` : path;
}

/** Whether a caller with this role (scoped to TENANT for tenant-admin) passes the route's policy. */
function admitted(op: Operation, role: string): boolean {
  if (!op.roles.includes(role)) return false;
  return !(role === 'tenant-admin' && op.scope === 'platform');
}

for (const factory of testDatabases()) {
  describe(`the back-office role matrix (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let operations: Operation[];
    const bearers = new Map<string, { authorization: string }>();

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, undefined, { runJobs: false });
      for (const name of ['Alpha', 'Beta']) {
        const made = await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name } });
        assert.equal(made.statusCode, 201, made.body);
      }
      const domain = await rail.app.inject({
        method: 'POST',
        url: `/api/admin/orgs/${TENANT}/domain`,
        headers: owner,
        payload: { domain: 'id.alpha.example' },
      });
      assert.equal(domain.statusCode, 200, domain.body);
      for (const role of OPERATOR_ROLES) {
        bearers.set(role, await signedInOperator(rail.app, `as-${role}`, [role], role === 'tenant-admin' ? TENANT : undefined));
      }
      const doc = (await rail.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        paths: Record<string, Record<string, { 'x-svc-roles'?: string[]; 'x-svc-tenant-scope'?: string }>>;
      };
      operations = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => METHODS.includes(method) && path.startsWith('/api/admin/'))
          .map(([method, op]) => ({
            method: method.toUpperCase() as Operation['method'],
            path,
            roles: op['x-svc-roles'] ?? [],
            scope: op['x-svc-tenant-scope'] ?? '',
          })),
      );
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('every back-office operation declares roles from the matrix, never issuer or verifier', (t) => {
      t.diagnostic(`${operations.length} operations under /api/admin/`);
      assert.ok(operations.length > 0);
      const rows = Object.values(ROLE_MATRIX).map((row) => [...row].sort().join(','));
      for (const op of operations) {
        const what = `${op.method} ${op.path}`;
        assert.ok(rows.includes([...op.roles].sort().join(',')), `${what}: its roles ${op.roles} are a row of ROLE_MATRIX`);
        assert.ok(!op.roles.includes('issuer') && !op.roles.includes('verifier'), `${what}: no legacy role`);
        assert.ok(op.scope !== '', `${what}: a declared tenant scope`);
      }
    });

    test('each role is admitted exactly where the matrix says, and refused with 403 forbidden elsewhere', async () => {
      const wrong: string[] = [];
      for (const op of operations) {
        for (const role of OPERATOR_ROLES) {
          const scoped = role === 'tenant-admin';
          const res = await rail.app.inject({
            method: op.method,
            url: urlOf(op, scoped),
            headers: bearers.get(role),
            // A change is sent a field no body takes, so an admitted caller is refused by the schema and
            // nothing runs (no domain is fetched, nothing is filed).
            ...(op.method === 'POST'
              ? { payload: { notAField: true, ...(scoped && op.scope === 'body.tenant' ? { tenant: TENANT } : {}) } }
              : {}),
          });
          const forbidden = res.statusCode === 403 && res.json().error === 'forbidden';
          const expected = admitted(op, role);
          // An admitted read answers; the ids this walk makes up are unknown, and say so.
          const readFails = expected && op.method === 'GET' && res.statusCode !== 200 && res.statusCode !== 404;
          const changeRan = expected && op.method === 'POST' && res.statusCode < 400;
          if (expected === forbidden || readFails || changeRan || res.statusCode === 401 || res.statusCode >= 500) {
            wrong.push(`${role} ${op.method} ${op.path}: ${res.statusCode} ${res.body.slice(0, 120)}`);
          }
          if (!expected && forbidden) assert.equal(typeof res.json().message, 'string');
        }
      }
      assert.deepEqual(wrong, []);
    });

    test('a tenant-admin naming another tenant is refused wherever the route reads the tenant', async (t) => {
      const admin = bearers.get('tenant-admin');
      const wrong: string[] = [];
      let walked = 0;
      for (const op of operations.filter((o) => o.roles.includes('tenant-admin'))) {
        const [where, field] = op.scope === 'list' ? ['query', 'tenant'] : op.scope.split('.');
        if (where !== 'query' && where !== 'params' && where !== 'body') continue;
        walked++;
        let url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
          name === field ? OTHER : (PATH_VALUES[name] ?? 'x0000000000000000000000'),
        );
        if (where === 'query') url += `?${field}=${OTHER}`;
        const res = await rail.app.inject({
          method: op.method,
          url,
          headers: admin,
          ...(op.method === 'POST' ? { payload: where === 'body' ? { [field ?? 'tenant']: OTHER } : {} } : {}),
        });
        if (res.statusCode !== 403 || res.json().error !== 'forbidden') wrong.push(`${op.method} ${url}: ${res.statusCode}`);
      }
      t.diagnostic(`${walked} operations read a tenant from the request`);
      assert.ok(walked > 0);
      assert.deepEqual(wrong, []);
    });
  });
}
