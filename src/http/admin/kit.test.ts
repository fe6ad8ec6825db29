import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ServiceError } from '../../core/errors.ts';
import { cursorOf, decodeCursor, encodeCursor, windowOf } from './kit.ts';

const refused = (err: unknown) => err instanceof ServiceError && err.code === 'invalid_request';

describe('the list kit', () => {
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
});
