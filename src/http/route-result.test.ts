import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { ListPage } from './list.ts';
import { defineRoute } from './route.ts';

/**
 * A handler's result is typed by the route's declared success answers (defineRoute): the type
 * checker (npm run typecheck) refuses a body that is not one of them. The `@ts-expect-error`
 * lines below fail the type check the day that refusal stops.
 */
const Answer = Type.Object({ count: Type.Integer(), name: Type.String() });

test('a handler returns one of its declared success bodies, or its reply', async () => {
  const ok = defineRoute({
    method: 'GET',
    path: '/probe/ok',
    auth: 'public',
    stability: 'unpromised',
    summary: 'probe',
    responses: { 200: { description: 'the answer', schema: Answer }, 404: { description: 'none' } },
    handler: async () => ({ count: 1, name: 'one' }),
  });
  const wrong = defineRoute({
    method: 'GET',
    path: '/probe/wrong',
    auth: 'public',
    stability: 'unpromised',
    summary: 'probe',
    responses: { 200: { description: 'the answer', schema: Answer } },
    // @ts-expect-error a count that is text is not the declared answer
    handler: async () => ({ count: 'one', name: 'one' }),
  });
  const missing = defineRoute({
    method: 'GET',
    path: '/probe/missing',
    auth: 'public',
    stability: 'unpromised',
    summary: 'probe',
    responses: { 201: { description: 'the answer', schema: Answer } },
    // @ts-expect-error a body without `name` is not the declared answer
    handler: async () => ({ count: 1 }),
  });
  assert.deepEqual(await ok.handler({} as never, {} as never), { count: 1, name: 'one' });
  assert.equal(((await wrong.handler({} as never, {} as never)) as { count: unknown }).count, 'one');
  assert.deepEqual(await missing.handler({} as never, {} as never), { count: 1 });
});

test('a list answers its rows under the name its ListPage declares', async () => {
  const misnamed = defineRoute({
    method: 'GET',
    path: '/probe/list',
    auth: 'public',
    stability: 'unpromised',
    summary: 'probe',
    responses: { 200: { description: 'a page', schema: ListPage('things', Answer) } },
    // @ts-expect-error the rows are declared as `things`, not `rows`
    handler: async () => ({ rows: [{ count: 1, name: 'one' }], nextCursor: null }),
  });
  const named = defineRoute({
    method: 'GET',
    path: '/probe/list-ok',
    auth: 'public',
    stability: 'unpromised',
    summary: 'probe',
    responses: { 200: { description: 'a page', schema: ListPage('things', Answer) } },
    handler: async () => ({ things: [{ count: 1, name: 'one' }], nextCursor: null }),
  });
  assert.ok(await misnamed.handler({} as never, {} as never));
  assert.deepEqual(await named.handler({} as never, {} as never), { things: [{ count: 1, name: 'one' }], nextCursor: null });
});
