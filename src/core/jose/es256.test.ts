import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import type { JWK } from 'jose';
import { DECODED_LIMIT, DECODED_MAX_CHARS, decodeJws, p256Jwk, signEs256, verifyEs256 } from './es256.ts';

const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = p256Jwk(key.publicKey.export({ format: 'jwk' })) as JWK;
const sign = (payload: Record<string, unknown>) => signEs256(key.privateKey, { typ: 'test+jwt' }, payload);

test('a JWS decoded again answers the same frozen reading: no reader can change what another reads', () => {
  const compact = sign({ sub: 'holder', cnf: { jwk: { kty: 'EC', crv: 'P-256' } }, list: [{ a: 1 }] });
  const first = decodeJws(compact);
  assert.ok(first);
  assert.equal(decodeJws(compact), first, 'the second decoding is the first');
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first.header) && Object.isFrozen(first.payload));
  const cnf = first.payload.cnf as { jwk: Record<string, unknown> };
  assert.ok(Object.isFrozen(cnf.jwk), 'nested objects too');
  assert.ok(Object.isFrozen((first.payload.list as object[])[0]), 'and the objects of arrays');
  assert.throws(() => {
    (first.payload as Record<string, unknown>).sub = 'someone else';
  }, TypeError);
  assert.throws(() => {
    cnf.jwk.crv = 'P-384';
  }, TypeError);
  assert.equal(decodeJws(compact)?.payload.sub, 'holder');
  assert.equal(verifyEs256(first, jwk), true, 'a remembered reading verifies as a fresh one');
});

test('what is not a JWS is answered undefined every time, and a long text is decoded without being kept', () => {
  assert.equal(decodeJws('not.a.jws'), undefined);
  assert.equal(decodeJws('not.a.jws'), undefined);
  const long = sign({ pad: 'x'.repeat(DECODED_MAX_CHARS) });
  const a = decodeJws(long);
  assert.ok(a);
  assert.notEqual(decodeJws(long), a, 'decoded afresh each time');
  assert.equal(Object.isFrozen(a.payload), false);
});

test(`at most ${DECODED_LIMIT} texts are kept, the oldest forgotten first`, () => {
  const texts = Array.from({ length: DECODED_LIMIT + 1 }, (_, i) => sign({ n: i }));
  const readings = texts.map((t) => decodeJws(t));
  assert.notEqual(decodeJws(texts[0] as string), readings[0], 'the oldest was forgotten');
  assert.equal(decodeJws(texts[DECODED_LIMIT] as string), readings[DECODED_LIMIT], 'the newest is kept');
});
