/**
 * Types with formats (docs/mdoc.md, "Types with formats"), on both engines: what a registration may
 * say of the mdoc format, the defaults it gets, and every refusal, each changing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { owner, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { rowCount } from '../../../test/helpers/refusals.ts';

for (const factory of testDatabases()) {
  describe(`credential types with formats (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let slug: string;

    const register = (body: Record<string, unknown>, url = '/api/types') =>
      rail.app.inject({ method: 'POST', url, headers: owner, payload: { tenant: slug, ...body } });

    before(async () => {
      db = await factory.create();
      rail = await startRail(db);
      const tenant = await rail.app.inject({
        method: 'POST',
        url: '/api/tenants',
        headers: owner,
        payload: { name: 'Format Works' },
      });
      slug = tenant.json().slug;
    });
    after(async () => {
      await rail?.stop();
      await db?.drop();
    });

    test('no format fields: SD-JWT VC alone, answered exactly as before', async () => {
      const res = await register({ name: 'Plain Card', claims: ['holder_name'] });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(Object.keys(res.json()).sort(), ['claims', 'name', 'tenant', 'typeId', 'vct']);
    });

    test('mdoc: {} offers both formats with the default doctype, namespace and elements', async () => {
      const res = await register({ name: 'Both Card', claims: ['holder_name', 'birth_date:date'], mdoc: {} });
      assert.equal(res.statusCode, 201, res.body);
      const doctype = `test.example.rail.${slug}.both-card`;
      assert.deepEqual(res.json().formats, ['dc+sd-jwt', 'mso_mdoc']);
      assert.deepEqual(res.json().mdoc, {
        doctype,
        elements: { holder_name: [doctype, 'holder_name'], birth_date: [doctype, 'birth_date'] },
      });
    });

    test('formats alone, an explicit doctype, namespace and element, and the back office’s registration', async () => {
      const only = await register({ name: 'Mdoc Only', claims: ['holder_name'], formats: ['mso_mdoc'] });
      assert.equal(only.statusCode, 201, only.body);
      assert.deepEqual(only.json().formats, ['mso_mdoc']);
      const named = await register(
        {
          name: 'Named Card',
          claims: ['holder_name', 'age_over_18:bool'],
          mdoc: {
            doctype: 'org.example.named.1',
            namespace: 'org.example.named',
            elements: { age_over_18: ['org.example.ages', 'over_18'] },
          },
        },
        '/api/admin/types',
      );
      assert.equal(named.statusCode, 201, named.body);
      assert.deepEqual(named.json().type.mdoc, {
        doctype: 'org.example.named.1',
        elements: { holder_name: ['org.example.named', 'holder_name'], age_over_18: ['org.example.ages', 'over_18'] },
      });
    });

    test('every refusal is 400 with the field named, and registers nothing', async () => {
      const before = await rowCount(rail.db, 'credential_types');
      for (const [body, field] of [
        [{ formats: ['jwt_vc'] }, 'body/formats'],
        [{ formats: ['mso_mdoc', 'mso_mdoc'] }, 'body/formats'],
        [{ formats: ['dc+sd-jwt'], mdoc: {} }, 'body/mdoc'],
        [{ mdoc: { doctype: 'not a doctype' } }, 'body/mdoc/doctype'],
        [{ mdoc: { namespace: '.starts.with.a.dot' } }, 'body/mdoc/namespace'],
        [{ mdoc: { elements: { nobody: ['org.example', 'nobody'] } } }, 'body/mdoc/elements'],
        [{ mdoc: { elements: { holder_name: ['org.example', 'has space'] } } }, 'body/mdoc/elements/holder_name'],
        [
          { mdoc: { elements: { nickname: ['org.example', 'holder_name'], holder_name: ['org.example', 'holder_name'] } } },
          'body/mdoc/elements',
        ],
      ] as const) {
        const res = await register({ name: 'Refused Card', claims: ['holder_name', 'nickname'], ...body });
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.ok(String(res.json().message).includes(field), `${res.json().message} names ${field}`);
      }
      assert.equal(await rowCount(rail.db, 'credential_types'), before);
    });
  });
}
