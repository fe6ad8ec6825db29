import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeJwt, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from 'jose';
import { readVectors } from '../../../test/helpers/vectors.ts';
import { compressStatusList, decompressStatusList, packStatuses, readStatus, type StatusBits } from './codec.ts';

/**
 * The published vectors (draft-ietf-oauth-status-list examples, vendored in test/fixtures/vectors),
 * read at test time so the expected values live in one place.
 */

interface ShortVector {
  bits: StatusBits;
  statuses: number[];
  bytesHex: string;
  compressedHex: string;
  lst: string;
}
interface LongVector {
  bits: StatusBits;
  size: number;
  set: Record<string, number>;
  lst: string;
}
interface Vectors {
  short: ShortVector[];
  long: LongVector[];
  token: {
    compact: string;
    publicJwk: JWK;
    expect: { typ: string; sub: string; iat: number; exp: number; ttl: number; bits: StatusBits; lst: string };
  };
}

const vectors = readVectors<Vectors>('status-list.json');

/** Every entry of a decoded list, read one by one through readStatus. */
function decodeAll(bytes: Uint8Array, bits: StatusBits, size: number): number[] {
  return Array.from({ length: size }, (_, i) => readStatus(bytes, bits, i));
}

test('the vectors file has the expected shape', () => {
  assert.ok(vectors.short.length >= 2, 'two short vectors');
  assert.ok(vectors.long.length >= 2, 'long vectors');
  assert.deepEqual(new Set(vectors.short.map((v) => v.bits)), new Set([1, 2]));
  for (const v of [...vectors.short, ...vectors.long]) assert.ok([1, 2, 4, 8].includes(v.bits), String(v.bits));
});

for (const v of vectors.short) {
  test(`short vector, bits=${v.bits}, ${v.statuses.length} entries: packs and compresses byte for byte`, () => {
    const bytes = packStatuses(
      v.statuses.length,
      v.bits,
      v.statuses.map((value, i) => [i, value] as [number, number]),
    );
    assert.equal(Buffer.from(bytes).toString('hex'), v.bytesHex);
    assert.equal(bytes.length, (v.statuses.length * v.bits) / 8, 'the array is exactly n*bits/8 bytes');

    const lst = compressStatusList(bytes);
    assert.equal(lst, v.lst);
    assert.equal(Buffer.from(lst, 'base64url').toString('hex'), v.compressedHex, 'zlib container, highest level');
    assert.ok(!lst.includes('='), 'base64url without padding');
  });

  test(`short vector, bits=${v.bits}: the published lst decodes to the statuses`, () => {
    const bytes = decompressStatusList(v.lst);
    assert.equal(Buffer.from(bytes).toString('hex'), v.bytesHex);
    assert.deepEqual(decodeAll(bytes, v.bits, v.statuses.length), v.statuses);
    // Entries packed in any order give the same bytes (a later write of an entry replaces it).
    const shuffled = v.statuses.map((value, i) => [i, value] as [number, number]).reverse();
    assert.equal(Buffer.from(packStatuses(v.statuses.length, v.bits, shuffled)).toString('hex'), v.bytesHex);
  });
}

for (const v of vectors.long) {
  test(`long vector, bits=${v.bits}, size ${v.size}: decodes to exactly the set indices`, () => {
    const bytes = decompressStatusList(v.lst);
    assert.equal(bytes.length, (v.size * v.bits) / 8, 'the list covers exactly size entries');

    const expected = new Map(Object.entries(v.set).map(([i, value]) => [Number(i), value]));
    assert.ok(expected.size > 0);
    const found = new Map<number, number>();
    for (let i = 0; i < v.size; i++) {
      const value = readStatus(bytes, v.bits, i);
      if (value !== 0) found.set(i, value);
    }
    assert.deepEqual(found, expected);

    // Our own encoding of the same entries holds the same bits (compared decoded, never as lst:
    // zlib implementations may emit different valid streams).
    const ours = packStatuses(v.size, v.bits, expected.entries());
    assert.deepEqual(ours, bytes);
    assert.deepEqual(decompressStatusList(compressStatusList(ours)), bytes);
  });
}

test('2-bit and wider lists keep each entry in its own lane (LSB first)', () => {
  for (const bits of [1, 2, 4, 8] as const) {
    const max = (1 << bits) - 1;
    const size = 64;
    const entries: Array<[number, number]> = Array.from({ length: size }, (_, i) => [i, (i * 7 + 3) % (max + 1)]);
    const bytes = packStatuses(size, bits, entries);
    assert.equal(bytes.length, (size * bits) / 8);
    assert.deepEqual(
      decodeAll(decompressStatusList(compressStatusList(bytes)), bits, size),
      entries.map(([, value]) => value),
    );
    // The first entry lives in the least significant bits of byte 0.
    assert.equal((bytes[0] ?? 0) & max, entries[0]?.[1]);
  }
});

test('an index outside the list throws, when packing and when reading', () => {
  for (const bits of [1, 2, 4, 8] as const) {
    const size = 16;
    for (const bad of [size, size + 1, -1, 1.5, Number.NaN]) {
      assert.throws(() => packStatuses(size, bits, [[bad, 1]]), RangeError, `pack bits=${bits} index ${bad}`);
    }
    const bytes = packStatuses(size, bits, [[size - 1, 1]]);
    assert.equal(readStatus(bytes, bits, size - 1), 1);
    for (const bad of [bytes.length * (8 / bits), bytes.length * (8 / bits) + 100, -1, 0.5]) {
      assert.throws(() => readStatus(bytes, bits, bad), RangeError, `read bits=${bits} index ${bad}`);
    }
  }
  // A decoded vector is read no further than its end.
  for (const v of vectors.short) {
    const bytes = decompressStatusList(v.lst);
    assert.throws(() => readStatus(bytes, v.bits, (bytes.length * 8) / v.bits), RangeError);
  }
});

test('a value too wide for the bit width throws', () => {
  for (const bits of [1, 2, 4, 8] as const) {
    const max = (1 << bits) - 1;
    assert.doesNotThrow(() => packStatuses(8, bits, [[0, max]]));
    for (const bad of [max + 1, max * 2 + 1, 256, -1]) {
      assert.throws(() => packStatuses(8, bits, [[0, bad]]), RangeError, `bits=${bits} value ${bad}`);
    }
  }
});

test('the example Status List Token verifies and carries the first short vector', async () => {
  const { compact, publicJwk, expect } = vectors.token;
  const key = await importJWK(publicJwk, 'ES256');
  const { payload, protectedHeader } = await jwtVerify(compact, key, { currentDate: new Date(expect.iat * 1000) });
  assert.equal(protectedHeader.typ, expect.typ);
  assert.equal(decodeProtectedHeader(compact).typ, expect.typ);
  assert.equal(payload.sub, expect.sub);
  assert.equal(payload.iat, expect.iat);
  assert.equal(payload.exp, expect.exp);
  assert.equal(payload.ttl, expect.ttl);
  const list = decodeJwt(compact).status_list as { bits: StatusBits; lst: string };
  assert.deepEqual(list, { bits: expect.bits, lst: expect.lst });
  const same = vectors.short.find((v) => v.lst === list.lst && v.bits === list.bits);
  assert.ok(same, 'the token carries a short vector');
  assert.deepEqual(decodeAll(decompressStatusList(list.lst), list.bits, same.statuses.length), same.statuses);
});
