import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defineRoute, statusKeyed } from './route.ts';

describe('objects keyed by status code', () => {
  test('statusKeyed keeps every entry, its value and the keys in order, in a new object', () => {
    const schema = { type: 'object' };
    const input = { 429: 'later', 200: schema, 404: 'gone', 400: 'bad' };
    const out = statusKeyed(input);
    assert.notEqual(out, input);
    assert.deepEqual(Object.keys(out), ['200', '400', '404', '429']);
    assert.equal(out[200], schema, 'the same value, not a copy');
    assert.deepEqual(out, input);
    assert.deepEqual(statusKeyed({}), {});
  });

  test('defineRoute answers the declaration with the same responses', () => {
    const ok = { description: 'Done.' };
    const def = {
      method: 'GET' as const,
      path: '/x',
      summary: 'X.',
      auth: 'public' as const,
      stability: 'promised' as const,
      responses: { 200: ok, 404: { description: 'Not found.' } },
      handler: async () => ({ status: 200 as const, body: undefined }),
    };
    const route = defineRoute(def);
    assert.equal(route.path, '/x');
    assert.equal(route.handler, def.handler);
    assert.deepEqual(route.responses, def.responses);
    assert.equal(route.responses[200], ok);
  });
});
