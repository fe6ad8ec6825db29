/**
 * One catalogue, three renderers (docs/errors.md): the same refusal reaches a browser as a page of
 * the site, an API caller as `{error, message}`, and an OAuth client as `{error, error_description}`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../test/helpers/databases.ts';
import { railOn, stopRail, type TestRail } from '../../test/helpers/rail.ts';
import { validationRefusal } from './error-handler.ts';

for (const factory of testDatabases()) {
  describe(`errors are rendered for the surface that asked (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    before(async () => {
      ({ db, rail } = await railOn(factory, { OPENRAIL_PLATFORM_NAME: 'City of Example' }));
    });
    after(() => stopRail(rail, db));

    test('a browser asking for a page that is not there gets a page of the site, named as the deployment', async () => {
      const res = await rail.app.inject({
        method: 'GET',
        url: '/no-such-page',
        headers: { accept: 'text/html,application/xhtml+xml' },
      });
      assert.equal(res.statusCode, 404);
      assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
      assert.match(String(res.headers['content-security-policy']), /default-src 'none'|default-src 'self'/);
      assert.match(res.body, /<title>Not Found · City of Example<\/title>/);
      assert.match(res.body, /<code>not_found<\/code> \(HTTP 404\)/);
      assert.match(res.body, /<p class="lead">No operation at GET \/no-such-page\.<\/p>/);
    });

    test('the same request from an API client is the service envelope', async () => {
      for (const headers of [{}, { accept: 'application/json' }, { accept: 'text/html', authorization: 'Bearer x' }]) {
        const res = await rail.app.inject({ method: 'GET', url: '/no-such-page', headers });
        assert.equal(res.statusCode, 404);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'message']);
        assert.equal(res.json().error, 'not_found');
      }
    });

    test('an OAuth endpoint answers in the words of RFC 6749, whatever the client accepts', async () => {
      const res = await rail.app.inject({
        method: 'POST',
        url: '/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        payload: 'grant_type=password&username=a&password=b',
      });
      assert.equal(res.statusCode, 400);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'error_description']);
      assert.equal(res.json().error, 'unsupported_grant_type');
    });
  });
}

test('a value outside its choices is named with every allowed one, for an enum and for a union of literals', () => {
  const union = validationRefusal('querystring', [
    {
      instancePath: '/status',
      keyword: 'const',
      params: { allowedValue: 'active' },
      data: 'bogus',
      message: 'must be equal to constant',
    },
    {
      instancePath: '/status',
      keyword: 'const',
      params: { allowedValue: 'suspended' },
      data: 'bogus',
      message: 'must be equal to constant',
    },
    { instancePath: '/status', keyword: 'anyOf', params: {}, data: 'bogus', message: 'must match a schema in anyOf' },
  ]);
  assert.equal(union.message, 'querystring/status is "bogus", not one of "active", "suspended".');
  const enumerated = validationRefusal('body', [
    { instancePath: '/mode', keyword: 'enum', params: { allowedValues: ['a', 'b'] }, data: 'x'.repeat(100) },
  ]);
  assert.equal(enumerated.message, `body/mode is "${'x'.repeat(59)}…, not one of "a", "b".`);
});
