import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ServiceError } from '../core/errors.ts';
import { cursorOf, decodeCursor, encodeCursor, PAGE_DEFAULT, PAGE_MAX, pageParams, windowOf } from './list.ts';

const refused = (err: unknown) => err instanceof ServiceError && err.code === 'invalid_request';

describe('the list convention', () => {
  test('cursorOf reads a cursor of the list’s own order, and nothing else', () => {
    assert.equal(cursorOf(undefined, ['number', 'string']), undefined);
    assert.deepEqual(cursorOf(decodeCursor(encodeCursor([5, 'x'])), ['number', 'string']), [5, 'x']);
    assert.throws(() => cursorOf([5], ['number', 'string']), refused, 'too short');
    assert.throws(() => cursorOf([5, 'x', 'y'], ['number', 'string']), refused, 'too long');
    assert.throws(() => cursorOf(['x', 5], ['number', 'string']), refused, 'another list’s order');
  });

  test('windowOf passes on only the bounds that were given', () => {
    assert.deepEqual(windowOf({ since: undefined, until: undefined }), {});
    assert.deepEqual(windowOf({ since: 1, until: undefined }), { since: 1 });
    assert.deepEqual(windowOf({ since: undefined, until: 2 }), { until: 2 });
    assert.deepEqual(windowOf({ since: 1, until: 2 }), { since: 1, until: 2 });
  });

  test('pageParams reads the common query: a bounded limit, a cursor this service made, dates as instants', () => {
    assert.deepEqual(pageParams({}), { limit: PAGE_DEFAULT, after: undefined, since: undefined, until: undefined });
    assert.equal(pageParams({ limit: String(PAGE_MAX) }).limit, PAGE_MAX);
    assert.throws(() => pageParams({ limit: String(PAGE_MAX + 1) }), refused, 'past the one maximum');
    assert.deepEqual(pageParams({ cursor: encodeCursor([7, 'a']) }).after, [7, 'a']);
    assert.throws(() => pageParams({ cursor: 'bm90IGpzb24' }), refused, 'not a cursor');
    const p = pageParams({ since: '2026-01-02', until: '2026-01-02T10:00:00Z' });
    assert.equal(p.since, Date.UTC(2026, 0, 2));
    assert.equal(p.until, Date.UTC(2026, 0, 2, 10));
    assert.throws(() => pageParams({ since: '2026-13-45' }), refused, 'not a date');
  });
});
