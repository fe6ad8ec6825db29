import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../core/errors.ts';
import type { OperatorPrincipal } from '../auth/operator-bearer.ts';
import { encodeCursor, ListPage } from '../list.ts';
import { AdminMutation, OPERATOR_ERRORS, refusal, Slug } from '../schemas/common.ts';
import { LIST_SCOPE, ListQuery } from './kit.ts';
import { adminOperations } from './operations.ts';
import { ROLE_MATRIX } from './role-matrix.ts';

const owner: OperatorPrincipal = { plane: 'operator', via: 'owner-token', username: null, roles: ['owner'], tenant: null };

/** A validated request as the registration hands it to the handler, and a reply that keeps its status. */
function call(query: Record<string, unknown>, params: Record<string, string> = {}, body: unknown = undefined) {
  const request = { principal: owner, query, params, body } as unknown as FastifyRequest;
  const sent: { code: number; body?: unknown } = { code: 200 };
  const reply = {
    code(code: number) {
      sent.code = code;
      return reply;
    },
    send(answer: unknown) {
      sent.body = answer;
      return reply;
    },
  } as unknown as FastifyReply;
  return { request, reply, sent };
}

const refused = (code: string) => (err: unknown) => err instanceof ServiceError && err.code === code;
const Thing = Type.Object({ id: Type.String(), at: Type.Integer() });
const ops = adminOperations({
  doc: 'docs/x.md',
  base: '/api/admin/x',
  params: { id: Slug },
  read: 'audit',
  write: 'opsRun',
  scope: 'platform',
});

describe('the back-office kit', () => {
  test('refuses, when the group is built, a path parameter without a schema, and an operation without a role row or scope', () => {
    assert.throws(() => ops.detail('/{other}', { summary: 's', answer: ['d', Thing], read: async () => undefined }), /other/);
    const bare = adminOperations({ doc: 'docs/x.md', scope: 'platform' });
    assert.throws(() => bare.detail('/y', { summary: 's', answer: ['d', Thing], read: async () => undefined }), /role-matrix/);
    const noScope = adminOperations({ doc: 'docs/x.md', read: 'audit' });
    assert.throws(() => noScope.detail('/y', { summary: 's', answer: ['d', Thing], read: async () => undefined }), /scope/);
  });

  test('declares what a defineRoute would: the plane, the row, the scope, the list query and page, the refusals', () => {
    const list = ops.list('', {
      summary: 'Things.',
      filters: { kind: Type.Optional(Type.String()) },
      page: ['things', Thing, 'A page of things.'],
      cursor: ['number', 'string'],
      read: async () => [] as Array<{ id: string; at: number }>,
      order: (t) => [t.at, t.id],
      view: (t) => t,
    });
    assert.equal(list.auth, 'operator');
    assert.equal(list.internal, true);
    assert.equal(list.path, '/api/admin/x');
    assert.deepEqual(list.roles, ROLE_MATRIX.audit);
    assert.deepEqual(list.scope, LIST_SCOPE);
    assert.deepEqual(list.querystring, ListQuery({ kind: Type.Optional(Type.String()) }));
    assert.deepEqual(list.responses, {
      200: { description: 'A page of things.', schema: ListPage('things', Thing) },
      ...OPERATOR_ERRORS,
    });

    const action = ops.action('/{id}/go', {
      summary: 'Go.',
      body: { why: Type.String() },
      answer: [201, 'Gone.', { thing: Thing }],
      refusals: { 409: 'conflict' },
      write: async () => ({ auditSeq: 1, thing: { id: 'a', at: 1 } }),
    });
    assert.deepEqual(action.params, Type.Object({ id: Slug }));
    assert.deepEqual(action.roles, ROLE_MATRIX.opsRun);
    assert.equal(action.scope, 'platform');
    assert.deepEqual(action.body, Type.Object({ why: Type.String() }, { additionalProperties: false }));
    assert.deepEqual(action.responses, {
      201: { description: 'Gone.', schema: AdminMutation({ thing: Thing }) },
      ...OPERATOR_ERRORS,
      409: refusal('conflict'),
    });
  });

  test('a list reads one more than the page, with the filters given, and answers the next cursor', async () => {
    const rows = [3, 2, 1].map((at) => ({ id: `t${at}`, at }));
    const asked: unknown[] = [];
    const list = ops.list('', {
      summary: 'Things.',
      filters: { kind: Type.Optional(Type.String()) },
      page: ['things', Thing, 'A page of things.'],
      cursor: ['number', 'string'],
      read: async (window) => {
        asked.push(window);
        return rows.slice(0, window.limit);
      },
      order: (t) => [t.at, t.id],
      view: (t) => t,
    });
    const first = call({ limit: '2', kind: 'k' });
    const page = (await list.handler(first.request, first.reply)) as { things: unknown[]; nextCursor: string | null };
    assert.deepEqual(asked[0], { kind: 'k', tenant: null, limit: 3 });
    assert.deepEqual(page, { things: rows.slice(0, 2), nextCursor: encodeCursor([2, 't2']) });
    const next = call({ limit: '2', cursor: page.nextCursor });
    await list.handler(next.request, next.reply);
    assert.deepEqual(asked[1], { tenant: null, after: [2, 't2'], limit: 3 });
    const bad = call({ cursor: encodeCursor(['t2', 2]) });
    await assert.rejects(list.handler(bad.request, bad.reply), refused('invalid_request'));
  });

  test('a detail not found is its 404; an action answers ok with its status, or 202 when it was filed', async () => {
    const detail = ops.detail('/{id}', {
      summary: 'A thing.',
      answer: ['The thing.', Thing],
      missing: ['unknown_tenant', ({ params }) => `No thing ${params.id}.`],
      read: async () => undefined,
    });
    assert.deepEqual(detail.responses[404], refusal('unknown_tenant'));
    const asked = call({}, { id: 'a' });
    await assert.rejects(detail.handler(asked.request, asked.reply), (err) => refused('unknown_tenant')(err));

    let filing = false;
    const action = ops.action('/{id}/go', {
      summary: 'Go.',
      answer: [200, 'Gone.', { thing: Thing }],
      filed: 'Filed for a second operator.',
      write: async () =>
        filing
          ? {
              auditSeq: 2,
              approval: {
                approvalId: 'apr',
                action: 'x',
                params: {},
                tenant: null,
                state: 'pending' as const,
                reason: null,
                requestedBy: 'owner-token',
                requestedAt: '',
                expiresAt: '',
                decidedBy: null,
                decidedAt: null,
                note: null,
                result: null,
              },
            }
          : { auditSeq: 1, thing: { id: 'a', at: 1 } },
    });
    const done = call({}, { id: 'a' });
    await action.handler(done.request, done.reply);
    assert.deepEqual(done.sent, { code: 200, body: { ok: true, auditSeq: 1, thing: { id: 'a', at: 1 } } });
    filing = true;
    const filed = call({}, { id: 'a' });
    await action.handler(filed.request, filed.reply);
    assert.equal(filed.sent.code, 202);
  });
});
