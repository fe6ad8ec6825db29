/**
 * Route schemas compiled on first use answer as Fastify's own compilers do when they compile every
 * schema at the start: the same refusals with the same complaints, the same serialised bodies.
 * Two real Fastify apps, one with each, asked the same requests.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { lazySchemas } from './lazy-schemas.ts';

const AJV = {
  customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, verbose: true },
};

function appWith(lazy: boolean): { app: FastifyInstance; schemas: ReturnType<typeof lazySchemas> } {
  const schemas = lazySchemas();
  const app = Fastify({ ajv: AJV, ...(lazy ? { schemaController: { compilersFactory: schemas.compilersFactory } } : {}) });
  app.post(
    '/things/:id',
    {
      schema: {
        params: { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+$' } }, required: ['id'] },
        querystring: { type: 'object', properties: { limit: { type: 'integer' } }, additionalProperties: false },
        body: {
          type: 'object',
          properties: { name: { type: 'string', maxLength: 8 }, count: { type: 'integer' } },
          required: ['name'],
          additionalProperties: false,
        },
        response: {
          200: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, count: { type: 'integer' } } },
        },
      },
    },
    async (request) => ({ ...(request.body as object), id: (request.params as { id: string }).id, secret: 'not in the schema' }),
  );
  return { app, schemas };
}

const REQUESTS = [
  { url: '/things/abc', payload: { name: 'cup', count: 2 } },
  { url: '/things/abc', payload: { name: 'a name too long' } },
  { url: '/things/abc', payload: { count: 2 } },
  { url: '/things/abc', payload: { name: 'cup', extra: true } },
  { url: '/things/abc', payload: { name: 'cup', count: '2' } },
  { url: '/things/ABC', payload: { name: 'cup' } },
  { url: '/things/abc?limit=x', payload: { name: 'cup' } },
  { url: '/things/abc?other=1', payload: { name: 'cup' } },
];

describe('route schemas compiled on first use', () => {
  test('nothing is compiled until a route is asked, and compileAll compiles the rest', async () => {
    const { app, schemas } = appWith(true);
    await app.ready();
    assert.equal(schemas.pending, 4, 'params, querystring, body and the 200 response');
    await app.inject({ method: 'POST', url: '/things/abc', payload: { name: 'cup' } });
    assert.equal(schemas.pending, 0, 'the first request compiled what it used');
    const second = appWith(true);
    await second.app.ready();
    second.schemas.compileAll();
    assert.equal(second.schemas.pending, 0);
    await Promise.all([app.close(), second.app.close()]);
  });

  test('every answer is the one of schemas compiled at the start', async () => {
    const eager = appWith(false).app;
    const { app: lazy } = appWith(true);
    for (const request of REQUESTS) {
      const [a, b] = await Promise.all([eager, lazy].map((app) => app.inject({ method: 'POST', ...request })));
      assert.ok(a && b);
      assert.equal(b.statusCode, a.statusCode, request.url);
      assert.equal(b.body, a.body, `${request.url} ${JSON.stringify(request.payload)}`);
    }
    const ok = await lazy.inject({ method: 'POST', ...REQUESTS[0] });
    assert.deepEqual(ok.json(), { id: 'abc', name: 'cup', count: 2 }, 'serialised by the response schema: no secret');
    const refused = await lazy.inject({ method: 'POST', ...REQUESTS[1] });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().message, /name/);
    await Promise.all([eager.close(), lazy.close()]);
  });
});
