import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { JWK } from 'jose';
import { sql } from 'kysely';
import { AesKeyVault } from '../../src/adapters/crypto/key-vault.ts';
import { createLogger } from '../../src/app/logger.ts';
import { compose, type Openrail } from '../../src/compose.ts';
import { loadConfig } from '../../src/config/config.ts';
import { type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { OWNER_TOKEN, owner, PUBLIC_URL } from '../helpers/rail.ts';

/** The master key test/helpers/rail.ts startRail uses. */
const MASTER_KEY = Buffer.alloc(32, 7);
const sealContext = (tenant: string, kid: string) => `openrail:signing-key:${tenant}:${kid}`;

interface KeyRow {
  tenant: string;
  kid: string;
  purpose: string;
  public_jwk: string;
  sealed_private_key: string;
}

/** Every value of every column of every row of every table, as text, labelled `table.column`. */
async function dumpDatabase(rail: Openrail, schema: string | undefined): Promise<{ tables: string[]; cells: string[] }> {
  const tables = schema
    ? (
        await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = ${schema} and table_type = 'BASE TABLE'`.execute(rail.db)
      ).rows.map((r) => r.name)
    : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(rail.db)).rows.map((r) => r.name);
  const cells: string[] = [];
  for (const table of tables) {
    const ref = schema ? sql.id(schema, table) : sql.id(table);
    const rows = (await sql<Record<string, unknown>>`select * from ${ref}`.execute(rail.db)).rows;
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        const text = Buffer.isBuffer(value) ? `${value.toString('utf8')} ${value.toString('hex')}` : String(value);
        cells.push(`${table}.${column}=${text}`);
      }
    }
  }
  return { tables, cells };
}

/** The forms in which a leaked `d` could appear: base64url as in the JWK, standard base64, hex. */
function forms(d: string): string[] {
  const bytes = Buffer.from(d, 'base64url');
  return [d, bytes.toString('base64').replace(/=+$/, ''), bytes.toString('hex')];
}

for (const factory of testDatabases()) {
  describe(`no private key in clear in any response, log line or column (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: Openrail;
    let dataDir: string;
    let base: string;
    const logs: string[] = [];
    const bodies: string[] = [];
    const created: string[] = [];

    const call = async (method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { ...init.headers, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      });
      const text = await res.text();
      bodies.push(`${method} ${path} ${res.status} ${JSON.stringify([...res.headers])}\n${text}`);
      return { status: res.status, text };
    };

    before(async () => {
      db = await factory.create();
      dataDir = mkdtempSync(join(tmpdir(), 'openrail-data-'));
      const config = loadConfig({
        PUBLIC_URL,
        OPENRAIL_OWNER_TOKEN: OWNER_TOKEN,
        OPENRAIL_MASTER_KEY: MASTER_KEY.toString('base64url'),
        OPENRAIL_DATA_DIR: dataDir,
        LOG_LEVEL: 'trace',
      });
      config.database = db.location;
      // The same logger `openrail serve` builds, at the most verbose level, writing into memory.
      const logger = createLogger('trace', { write: (line: string) => void logs.push(line) });
      rail = await compose(config, {
        logger,
        warn: (m) => void logs.push(m),
        ...(db.schema ? { database: { schema: db.schema } } : {}),
      });
      await rail.app.listen({ port: 0, host: '127.0.0.1' });
      const address = rail.app.server.address();
      assert.ok(address && typeof address === 'object');
      base = `http://127.0.0.1:${address.port}`;

      for (const name of ['City of Ghent', 'Port Authority', 'Harbour Works']) {
        const res = await call('POST', '/api/tenants', { headers: owner, body: { name } });
        assert.equal(res.status, 201, res.text);
        created.push((JSON.parse(res.text) as { slug: string }).slug);
      }
      await call('POST', '/api/tenants', { body: { name: 'No Credentials' } });
      await call('POST', '/api/tenants', { headers: owner, body: { name: 'Riverside (Demo)' } });
      await call('POST', '/api/tenants/update', { headers: owner, body: { tenant: created[0], displayName: 'Ghent' } });
      await call('POST', '/api/login', { body: { username: 'nobody', password: 'wrong-password' } });
      for (const path of [
        '/.well-known/did.json',
        ...[...created, 'demo-transit', 'root', 'no-such-tenant'].map((slug) => `/t/${slug}/did.json`),
        '/readyz',
        '/build',
        '/openapi.json',
        '/.well-known/security.txt',
        '/no-such-route',
      ]) {
        await call('GET', path);
      }
      // Readiness signs with the platform key: run it twice so the cached, opened key is used too.
      await call('GET', '/readyz');
    });
    after(async () => {
      await rail?.close();
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const storedKeys = async () =>
      (await rail.db
        .selectFrom('signing_keys')
        .select(['tenant', 'kid', 'purpose', 'public_jwk', 'sealed_private_key'])
        .execute()) as KeyRow[];

    const openAll = async () => {
      const vault = new AesKeyVault(MASTER_KEY);
      return (await storedKeys()).map((row) => ({
        row,
        jwk: JSON.parse(vault.open(row.sealed_private_key, sealContext(row.tenant, row.kid))) as JWK,
      }));
    };

    test('every stored private key opens under the master key and matches its public key', async () => {
      const keys = await openAll();
      const tenants = new Set(keys.map((k) => k.row.tenant));
      for (const slug of ['root', 'demo-transit', ...created]) assert.ok(tenants.has(slug), `no key for ${slug}`);
      assert.ok(keys.some((k) => k.row.tenant === 'root' && k.row.purpose === 'verifier'));
      for (const { row, jwk } of keys) {
        assert.equal(typeof jwk.d, 'string', `${row.tenant}/${row.kid} has no d`);
        assert.equal(Buffer.from(jwk.d ?? '', 'base64url').length, 32);
        const pub = JSON.parse(row.public_jwk) as JWK;
        assert.equal(pub.d, undefined, 'the public column carries no d');
        assert.deepEqual([jwk.kty, jwk.crv, jwk.x, jwk.y], [pub.kty, pub.crv, pub.x, pub.y]);
      }
    });

    test('no d (nor the private JWK) appears in any response body', async () => {
      assert.ok(bodies.length >= 15);
      const all = bodies.join('\n');
      // The collection is real: every public key was published in some response.
      for (const { row } of await openAll()) assert.ok(all.includes((JSON.parse(row.public_jwk) as JWK).x ?? '?'));
      for (const { row, jwk } of await openAll()) {
        for (const needle of [...forms(jwk.d ?? ''), JSON.stringify(jwk)]) {
          const leak = bodies.find((b) => b.includes(needle));
          assert.equal(leak, undefined, `private key of ${row.tenant}/${row.kid} in a response`);
        }
      }
    });

    test('no d (nor the private JWK) appears in any log line', async () => {
      assert.equal(logs.filter((l) => l.includes('"msg":"request"')).length, bodies.length, 'one log line per request');
      for (const { row, jwk } of await openAll()) {
        for (const needle of [...forms(jwk.d ?? ''), JSON.stringify(jwk), row.sealed_private_key]) {
          const leak = logs.find((l) => l.includes(needle));
          assert.equal(leak, undefined, `private key of ${row.tenant}/${row.kid} in the log: ${leak}`);
        }
      }
      assert.equal(
        logs.find((l) => l.includes(OWNER_TOKEN)),
        undefined,
        'the owner token is not logged either',
      );
    });

    test('no d (nor the private JWK) appears in any column of any table', async () => {
      const { tables, cells } = await dumpDatabase(rail, db.schema);
      for (const t of ['settings', 'tenants', 'signing_keys', 'operators', 'kysely_migration']) {
        assert.ok(tables.includes(t), `${t} missing from ${tables.join(', ')}`);
      }
      const keys = await openAll();
      // The dump is real: it sees every sealed value and every public key.
      for (const { row } of keys) {
        assert.ok(cells.includes(`signing_keys.sealed_private_key=${row.sealed_private_key}`));
        assert.ok(cells.some((c) => c.includes((JSON.parse(row.public_jwk) as JWK).x ?? '?')));
      }
      for (const { row, jwk } of keys) {
        for (const needle of [...forms(jwk.d ?? ''), JSON.stringify(jwk)]) {
          const leak = cells.find((c) => c.includes(needle));
          assert.equal(leak, undefined, `private key of ${row.tenant}/${row.kid} stored in clear`);
        }
      }
    });

    test('a sealed key is bound to its tenant and kid: another context or master key cannot open it', async () => {
      const keys = await storedKeys();
      const [a, b] = keys;
      assert.ok(a && b);
      const vault = new AesKeyVault(MASTER_KEY);
      assert.throws(() => vault.open(a.sealed_private_key, sealContext(b.tenant, b.kid)));
      assert.throws(() => vault.open(a.sealed_private_key, sealContext(a.tenant, b.kid)));
      assert.throws(() => vault.open(a.sealed_private_key, `${sealContext(a.tenant, a.kid)} `));
      assert.throws(() => new AesKeyVault(Buffer.alloc(32, 8)).open(a.sealed_private_key, sealContext(a.tenant, a.kid)));
      // Moving a sealed value onto another row does not make it open there.
      assert.throws(() => vault.open(b.sealed_private_key, sealContext(a.tenant, a.kid)));
    });
  });
}

describe('KeyVault', () => {
  const vault = new AesKeyVault(MASTER_KEY);
  const secret = JSON.stringify({ kty: 'EC', crv: 'P-256', d: 'private-scalar', x: 'x', y: 'y' });
  const context = sealContext('tenant-a', 'kid-1');

  test('sealing twice gives two different values (fresh IV) that both open', () => {
    const one = vault.seal(secret, context);
    const two = vault.seal(secret, context);
    assert.notEqual(one, two);
    assert.notEqual(one.split('.')[1], two.split('.')[1], 'the IVs differ');
    assert.match(one, /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.equal(one.includes('private-scalar'), false);
    assert.equal(vault.open(one, context), secret);
    assert.equal(vault.open(two, context), secret);
  });

  test('the wrong context, the wrong master key, or a tampered value throws', () => {
    const sealed = vault.seal(secret, context);
    assert.throws(() => vault.open(sealed, sealContext('tenant-b', 'kid-1')));
    assert.throws(() => vault.open(sealed, sealContext('tenant-a', 'kid-2')));
    assert.throws(() => new AesKeyVault(Buffer.alloc(32, 8)).open(sealed, context));
    const [v, iv, ct, tag] = sealed.split('.') as [string, string, string, string];
    const flip = (s: string) => {
      const bytes = Buffer.from(s, 'base64url');
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      return bytes.toString('base64url');
    };
    for (const tampered of [
      [v, flip(iv), ct, tag],
      [v, iv, flip(ct), tag],
      [v, iv, ct, flip(tag)],
      ['v2', iv, ct, tag],
      [v, iv, ct],
    ]) {
      assert.throws(() => vault.open(tampered.join('.'), context), tampered.join('.'));
    }
  });

  test('refuses a master key that is not 32 bytes', () => {
    assert.throws(() => new AesKeyVault(Buffer.alloc(16)));
    assert.throws(() => new AesKeyVault(Buffer.alloc(33)));
  });
});
