import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bool, col, json, num, rowCodec } from './row-codec.ts';

interface Thing {
  id: string;
  kind: 'a' | 'b';
  createdAt: number;
  endedAt: number;
  demo: boolean;
  detail: { a: number } | null;
  ownerKey: string;
}
interface ThingsTable {
  id: string;
  kind: string;
  created_at: number;
  ended_at: number | null;
  demo: number;
  detail: string | null;
  holder_thumbprint: string;
}

const things = rowCodec<Thing, ThingsTable>()('id kind createdAt', {
  endedAt: num,
  demo: bool,
  detail: json,
  ownerKey: col('holder_thumbprint', json),
});
const thing: Thing = { id: 't1', kind: 'a', createdAt: 5, endedAt: 6, demo: true, detail: { a: 1 }, ownerKey: 'k' };

test('a codec writes each field to its column and reads the same record back', () => {
  const row = things.row(thing);
  assert.deepEqual(row, {
    id: 't1',
    kind: 'a',
    created_at: 5,
    ended_at: 6,
    demo: 1,
    detail: '{"a":1}',
    holder_thumbprint: '"k"',
  });
  assert.deepEqual(things.record(row as ThingsTable), thing);
  assert.deepEqual(things.columns, ['id', 'kind', 'created_at', 'ended_at', 'demo', 'detail', 'holder_thumbprint']);
});

test('nulls stay null and a number handed back as text is read as a number', () => {
  const row = {
    id: 't2',
    kind: 'b',
    created_at: 7,
    ended_at: '8' as unknown as number,
    demo: 0,
    detail: null,
    holder_thumbprint: '"k"',
  };
  assert.deepEqual(things.record(row), {
    id: 't2',
    kind: 'b',
    createdAt: 7,
    endedAt: 8,
    demo: false,
    detail: null,
    ownerKey: 'k',
  });
  assert.equal(things.record({ ...row, ended_at: null }).endedAt, null);
});

test('a patch writes only the fields it gives a value', () => {
  assert.deepEqual(things.patch({ demo: false, detail: undefined, endedAt: 9 }), { demo: 0, ended_at: 9 });
});

test('the typechecker refuses a declaration that does not fit its record or table', () => {
  // Each probe must fail the typecheck (`npm run typecheck` fails on an unused expectation); the
  // assertions show what each would do wrong at run time.
  // @ts-expect-error `ownerKey` has no column `owner_key`.
  const misnamed = rowCodec<Thing, ThingsTable>()('id kind createdAt ownerKey', { endedAt: num, demo: bool, detail: json });
  assert.equal(misnamed.columns[3], 'owner_key');
  // @ts-expect-error `endedAt` is a number, its column may be null.
  const nullable = rowCodec<Thing, ThingsTable>()('id kind createdAt endedAt', {
    demo: bool,
    detail: json,
    ownerKey: col('holder_thumbprint', json),
  });
  assert.equal(nullable.record({ ...things.row(thing), ended_at: null } as ThingsTable).endedAt, null);
  const asJson = rowCodec<Thing, ThingsTable>()('id kind', {
    // @ts-expect-error `created_at` holds a number, not JSON text.
    createdAt: json,
    endedAt: num,
    demo: bool,
    detail: json,
    ownerKey: col('holder_thumbprint', json),
  });
  assert.equal(asJson.row(thing).created_at, '5');
  // @ts-expect-error `demo` is a boolean stored as 0/1: it needs `bool`.
  const rawBoolean = rowCodec<Thing, ThingsTable>()('id kind createdAt demo', {
    endedAt: num,
    detail: json,
    ownerKey: col('holder_thumbprint', json),
  });
  assert.equal(rawBoolean.row(thing).demo, true);
  // @ts-expect-error `ownerKey` is left out.
  const partial = rowCodec<Thing, ThingsTable>()('id kind createdAt', { endedAt: num, demo: bool, detail: json });
  assert.equal(partial.columns.length, 6);
  const twice = rowCodec<Thing, ThingsTable>()('id kind createdAt demo', {
    endedAt: num,
    // @ts-expect-error `demo` is named twice (in the string too).
    demo: bool,
    detail: json,
    ownerKey: col('holder_thumbprint', json),
  });
  assert.equal(twice.columns.filter((c) => c === 'demo').length, 2);
});
