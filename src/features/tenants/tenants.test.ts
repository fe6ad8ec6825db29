import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { calculateJwkThumbprint } from 'jose';
import { insertAccessToken, type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { holderJws } from '../../../test/helpers/holder.ts';
import { signedInOperator } from '../../../test/helpers/operators.ts';
import { livePartnerSession } from '../../../test/helpers/partners.ts';
import { bearer, owner, PUBLIC_URL, railOn, stopRail, type TestRail } from '../../../test/helpers/rail.ts';
import { systemRandom } from '../../adapters/crypto/random-pool.ts';
import { SqlIntegrationTokenStore } from '../../adapters/sql/integration/sql-integration-token-store.ts';
import { INTEGRATION_SCOPES, type IntegrationScope } from '../../core/integration-scopes.ts';
import { hashToken } from '../../core/secrets.ts';
import { OPERATOR_ROLES } from '../../ports/operator-store.ts';
import { mintToken } from '../integration/token-service.ts';

for (const factory of testDatabases()) {
  describe(`tenants over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    before(async () => {
      ({ db, rail } = await railOn(factory));
    });
    after(() => stopRail(rail, db));

    const create = (headers: Record<string, string>, body: unknown = { name: 'City of Ghent' }, url = '/api/tenants') =>
      rail.app.inject({ method: 'POST', url, headers, payload: body as object });
    const update = (payload: Record<string, unknown>) =>
      rail.app.inject({ method: 'POST', url: '/api/tenants/update', headers: owner, payload });
    const tenantCount = async () => (await rail.db.selectFrom('tenants').select('slug').execute()).length;

    test('refuses a request without credentials, with a Holder credential, or with an unknown bearer', async () => {
      const before = await tenantCount();
      const holder = { authorization: `Holder ${await holderJws({ aud: new URL(PUBLIC_URL).origin })}` };
      for (const headers of [{}, holder, bearer('not-a-token-anyone-issued')]) {
        const res = await create(headers);
        assert.equal(res.statusCode, 401, JSON.stringify(headers));
        assert.equal(res.json().error, 'unauthorized');
        assert.match(String(res.headers['www-authenticate']), /^Bearer realm="openrail"/);
      }
      assert.equal(await tenantCount(), before, 'a refused request creates nothing');
    });

    test('refuses an OID4VCI access token on the operator plane', async () => {
      const token = 'orat_cross-plane-test-token';
      await insertAccessToken(rail.db, {
        tenant: 'root',
        tokenHash: hashToken(token),
        grantId: 'g1',
        createdAt: Date.now(),
        expiresAt: Date.now() + 60_000,
      });
      const res = await create(bearer(token));
      assert.equal(res.statusCode, 401);
    });

    test('the owner creates a tenant whose DID document resolves and binds the DID', async () => {
      const res = await create(owner, { name: 'City of Ghent' });
      assert.equal(res.statusCode, 201);
      const tenant = res.json();
      assert.deepEqual(Object.keys(tenant).sort(), ['did', 'name', 'slug']);
      assert.equal(tenant.slug, 'city-of-ghent');
      assert.equal(tenant.name, 'City of Ghent');
      assert.equal(tenant.did, 'did:web:rail.example.test:t:city-of-ghent');

      const doc = await rail.app.inject({ method: 'GET', url: `/t/${tenant.slug}/did.json` });
      assert.equal(doc.statusCode, 200);
      assert.equal(doc.headers['access-control-allow-origin'], '*');
      const body = doc.json();
      assert.equal(body.id, tenant.did);
      assert.equal(body.verificationMethod.length, 1);
      const vm = body.verificationMethod[0];
      assert.equal(vm.type, 'JsonWebKey2020');
      assert.equal(vm.controller, tenant.did);
      assert.deepEqual(Object.keys(vm.publicKeyJwk).sort(), ['crv', 'kty', 'x', 'y']);
      assert.equal(vm.id, `${tenant.did}#${await calculateJwkThumbprint(vm.publicKeyJwk, 'sha256')}`);
      assert.deepEqual(body.assertionMethod, [vm.id]);
    });

    // Decision 0023: provisioning a tenant takes a platform-wide bearer with the `issuer` role or
    // `owner` (Authentication 7), the owner token included; a tenant-scoped credential, a key, a
    // partner and every other role are refused, and a refusal creates nothing.
    test('who provisions a tenant (decision 0023): owner or issuer, platform-wide; nobody else', async () => {
      const auditCount = async () => (await rail.db.selectFrom('audit_log').select('seq').execute()).length;
      let n = 0;
      const admitted: Array<[string, Record<string, string>]> = [
        ['the owner token', owner],
        ['an owner operator', await signedInOperator(rail.app, 'prov-owner', ['owner'])],
        ['an issuer operator', await signedInOperator(rail.app, 'prov-issuer', ['issuer'])],
      ];
      for (const [who, headers] of admitted) {
        for (const url of ['/api/tenants', '/v1/tenants']) {
          const res = await create(headers, { name: `Provisioned ${++n}` }, url);
          assert.equal(res.statusCode, 201, `${who} at ${url}: ${res.body}`);
        }
      }
      const refused: Array<[string, Record<string, string>]> = [
        ['an issuer scoped to a tenant', await signedInOperator(rail.app, 'prov-scoped-issuer', ['issuer'], 'demo-transit')],
        ['an owner scoped to a tenant', await signedInOperator(rail.app, 'prov-scoped-owner', ['owner'], 'demo-transit')],
        ['a partner', (await livePartnerSession(rail.db, { scopes: ['issuance'] })).bearer],
      ];
      // An integration token with every scope, written as the provisioning ceremony would.
      const key = mintToken(
        systemRandom,
        'itk_provisioning-test-key',
        {
          tenant: 'demo-transit',
          label: 'every scope',
          scopes: Object.keys(INTEGRATION_SCOPES) as IntegrationScope[],
          rateClass: 'standard',
          requestId: null,
          createdBy: 'test',
          partnerId: null,
        },
        Date.now(),
      );
      await new SqlIntegrationTokenStore(rail.db).createToken(key.record);
      refused.push(['an integration token', bearer(key.secret)]);
      for (const role of OPERATOR_ROLES.filter((r) => r !== 'owner' && r !== 'issuer')) {
        const scope = role === 'tenant-admin' ? 'demo-transit' : undefined;
        refused.push([`an operator with the ${role} role`, await signedInOperator(rail.app, `prov-${role}`, [role], scope)]);
      }
      const tenants = await tenantCount();
      const audited = await auditCount();
      for (const [who, headers] of refused) {
        for (const url of ['/api/tenants', '/v1/tenants']) {
          const res = await create(headers, { name: 'Never Provisioned' }, url);
          assert.equal(res.statusCode, 403, `${who} at ${url}: ${res.body}`);
          assert.equal(res.json().error, 'forbidden', who);
        }
      }
      assert.equal(await tenantCount(), tenants, 'a refusal creates no tenant');
      assert.equal(await auditCount(), audited, 'and writes nothing');
      // The contract says the same: the roles and the platform scope of the operation.
      const doc = (await rail.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      for (const path of ['/api/tenants', '/v1/tenants']) {
        assert.deepEqual(doc.paths[path].post['x-svc-roles'], ['issuer', 'owner'], path);
        assert.equal(doc.paths[path].post['x-svc-tenant-scope'], 'platform', path);
      }
    });

    test('/v1/tenants is the same operation', async () => {
      const res = await create(owner, { name: 'Port Authority' }, '/v1/tenants');
      assert.equal(res.statusCode, 201);
      assert.equal(res.json().slug, 'port-authority');
      assert.equal((await create({}, { name: 'x' }, '/v1/tenants')).statusCode, 401);
    });

    test('a colliding name gets the next free slug', async () => {
      const first = (await create(owner, { name: 'Harbour Works' })).json();
      const second = (await create(owner, { name: 'Harbour  works!' })).json();
      assert.equal(first.slug, 'harbour-works');
      assert.equal(second.slug, 'harbour-works-2');
      assert.notEqual(first.did, second.did);
    });

    test('never creates a demonstration tenant', async () => {
      const before = await tenantCount();
      const refused = await create(owner, { name: 'Riverside (Demo)' });
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json().error, 'reserved_name');
      assert.equal(await tenantCount(), before);
      const prefixed = (await create(owner, { name: 'Demo Systems' })).json();
      assert.equal(prefixed.slug, 'org-demo-systems');
      const root = (await create(owner, { name: 'Root' })).json();
      assert.equal(root.slug, 'org-root');
    });

    test('refuses malformed JSON, unknown fields and empty names with 400 and writes nothing', async () => {
      const before = await tenantCount();
      const malformed = await rail.app.inject({
        method: 'POST',
        url: '/api/tenants',
        headers: { ...owner, 'content-type': 'application/json' },
        payload: '{"name": ',
      });
      assert.equal(malformed.statusCode, 400);
      assert.equal(malformed.json().error, 'malformed_json');
      for (const body of [{ name: '' }, { name: '   ' }, { name: 'A', slug: 'chosen' }, {}, { name: 42 }]) {
        const res = await create(owner, body);
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(res.json().error, 'invalid_request');
      }
      assert.equal(await tenantCount(), before);
    });

    test('the platform tenant root and the demo tenant exist from the first start', async () => {
      const platform = await rail.app.inject({ method: 'GET', url: '/.well-known/did.json' });
      assert.equal(platform.json().id, 'did:web:rail.example.test');
      const demo = await rail.db.selectFrom('tenants').selectAll().where('slug', 'like', 'demo-%').execute();
      assert.equal(demo.length, 1);
      assert.match(demo[0]?.name ?? '', / \(Demo\)$/);
      assert.equal((await rail.app.inject({ method: 'GET', url: `/t/${demo[0]?.slug}/did.json` })).statusCode, 200);
      assert.equal((await rail.app.inject({ method: 'GET', url: '/t/root/did.json' })).statusCode, 404);
      assert.equal((await rail.app.inject({ method: 'GET', url: '/t/nobody/did.json' })).json().error, 'unknown_tenant');
    });

    test('updates profile and branding; refuses to un-mark a demo tenant', async () => {
      const { slug } = (await create(owner, { name: 'Brand Co' })).json();
      const res = await update({
        tenant: slug,
        displayName: 'Brand Company',
        primaryColor: '#112233',
        logoUri: 'https://brand.example/logo.png',
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().profile.displayName, 'Brand Company');
      assert.equal(res.json().profile.primaryColor, '#112233');
      assert.equal(res.json().profile.description, null);

      const cleared = await update({ tenant: slug, primaryColor: null });
      assert.equal(cleared.json().profile.primaryColor, null);
      assert.equal(cleared.json().profile.displayName, 'Brand Company');

      const badColour = await update({ tenant: slug, primaryColor: 'red' });
      assert.equal(badColour.statusCode, 400);

      const unmark = await update({ tenant: 'demo-transit', displayName: 'Metro Transit' });
      assert.equal(unmark.statusCode, 400);
      assert.equal(unmark.json().error, 'reserved_name');
      const unknown = await update({ tenant: 'no-such-tenant', displayName: 'X' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().error, 'unknown_tenant');
    });
  });
}
