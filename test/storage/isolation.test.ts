import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KeyVault } from '../../src/adapters/crypto/key-vault.ts';
import { LocalKeyStore } from '../../src/adapters/crypto/local-key-store.ts';
import { type Db, migrate } from '../../src/adapters/sql/connect.ts';
import { SqlAccessTokenStore } from '../../src/adapters/sql/sql-access-token-store.ts';
import { SqlSigningKeyStore } from '../../src/adapters/sql/sql-signing-key-store.ts';
import { SqlTenantStore } from '../../src/adapters/sql/sql-tenant-store.ts';
import { systemClock } from '../../src/core/clock.ts';
import { openTestDb, type TestDatabase, tenantRecord, testDatabases } from '../helpers/databases.ts';

/**
 * Every tenant-owned repository method, called as tenant A and as tenant B: neither ever sees
 * or changes the other's rows.
 */
for (const factory of testDatabases()) {
  describe(`tenant isolation in every repository (${factory.name})`, () => {
    let target: TestDatabase;
    let db: Db;
    let tenants: SqlTenantStore;
    let signingKeys: SqlSigningKeyStore;
    let keys: LocalKeyStore;
    let tokens: SqlAccessTokenStore;

    before(async () => {
      target = await factory.create();
      db = openTestDb(target);
      await migrate(db);
      tenants = new SqlTenantStore(db);
      signingKeys = new SqlSigningKeyStore(db);
      keys = new LocalKeyStore(signingKeys, new KeyVault(Buffer.alloc(32, 3)), systemClock);
      tokens = new SqlAccessTokenStore(db);
      for (const slug of ['alpha', 'beta']) {
        assert.equal(await tenants.create(tenantRecord(slug), [await keys.prepareKey(slug, 'issuer')]), true);
      }
    });
    after(async () => {
      await db.destroy();
      await target.drop();
    });

    test('TenantStore: get, updateProfile and slugsStartingWith touch only the named tenant', async () => {
      assert.equal((await tenants.get('alpha'))?.name, 'ALPHA');
      assert.equal((await tenants.get('beta'))?.name, 'BETA');
      await tenants.updateProfile('alpha', { displayName: 'Alpha Inc' }, 2);
      assert.equal((await tenants.get('alpha'))?.displayName, 'Alpha Inc');
      assert.equal((await tenants.get('beta'))?.displayName, null);
      assert.equal((await tenants.get('beta'))?.updatedAt, 1);
      assert.deepEqual(await tenants.slugsStartingWith('alp'), ['alpha']);
      assert.equal(await tenants.create(tenantRecord('alpha'), []), false, 'a taken slug is refused');
      assert.equal((await tenants.get('alpha'))?.displayName, 'Alpha Inc', 'and the refused insert changed nothing');
    });

    test('TenantStore.create writes tenant and keys together or not at all', async () => {
      const wrongOwner = await keys.prepareKey('beta', 'issuer');
      await assert.rejects(tenants.create(tenantRecord('gamma'), [wrongOwner]));
      assert.equal(await tenants.get('gamma'), undefined, 'the tenant row was rolled back');
      assert.equal((await signingKeys.published('beta')).length, 1, 'no key was added to beta');
    });

    test('SigningKeyStore: insert, active and published are scoped to the tenant', async () => {
      const a = await signingKeys.active('alpha', 'issuer');
      const b = await signingKeys.active('beta', 'issuer');
      assert.ok(a && b);
      assert.notEqual(a.kid, b.kid);
      assert.deepEqual(
        (await signingKeys.published('alpha')).map((k) => k.kid),
        [a.kid],
      );
      assert.deepEqual(
        (await signingKeys.published('beta')).map((k) => k.kid),
        [b.kid],
      );
      assert.equal(await signingKeys.active('alpha', 'verifier'), undefined);
      // A second active issuer key for alpha is refused, and beta is untouched by alpha's insert.
      assert.equal(await signingKeys.insert(await keys.prepareKey('alpha', 'issuer')), false);
      assert.equal(await signingKeys.insert(await keys.prepareKey('alpha', 'verifier')), true);
      assert.equal(await signingKeys.active('beta', 'verifier'), undefined);
      assert.equal((await signingKeys.published('beta')).length, 1);
    });

    test('KeyStore: a sealed key opens only as its own tenant', async () => {
      const jws = await keys.signJwt('alpha', 'issuer', { typ: 'JWT' }, { sub: 'x' });
      assert.match(jws, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      const beta = await signingKeys.active('beta', 'issuer');
      assert.ok(beta);
      // Move beta's sealed key onto a row claiming to be alpha's: the vault refuses to open it.
      await db.deleteFrom('signing_keys').where('tenant', '=', 'alpha').where('purpose', '=', 'verifier').execute();
      await db
        .insertInto('signing_keys')
        .values({
          tenant: 'alpha',
          kid: beta.kid,
          purpose: 'verifier',
          public_jwk: JSON.stringify(beta.publicJwk),
          sealed_private_jwk: beta.sealedPrivateJwk,
          created_at: 3,
          retired_at: null,
        })
        .execute();
      const fresh = new LocalKeyStore(signingKeys, new KeyVault(Buffer.alloc(32, 3)), systemClock);
      await assert.rejects(fresh.signJwt('alpha', 'verifier', { typ: 'JWT' }, {}));
    });

    test('AccessTokenStore: issue, findUsable and consume keep to the owning tenant', async () => {
      const now = Date.now();
      await tokens.issue({ tenant: 'alpha', tokenHash: 'hash-a', grantId: 'ga', createdAt: now, expiresAt: now + 60_000 });
      await tokens.issue({ tenant: 'beta', tokenHash: 'hash-b', grantId: 'gb', createdAt: now, expiresAt: now + 60_000 });
      assert.equal((await tokens.findUsable('hash-a', now))?.tenant, 'alpha');
      assert.equal((await tokens.findUsable('hash-b', now))?.tenant, 'beta');
      assert.equal(await tokens.consume('beta', 'hash-a', now), false, "beta cannot spend alpha's token");
      assert.ok(await tokens.findUsable('hash-a', now), 'and the refused attempt left it usable');
      assert.equal(await tokens.consume('alpha', 'hash-a', now), true);
      assert.equal(await tokens.consume('alpha', 'hash-a', now), false, 'single use');
      assert.equal(await tokens.findUsable('hash-a', now), undefined);
      assert.ok(await tokens.findUsable('hash-b', now), "spending alpha's token left beta's alone");
    });
  });
}
