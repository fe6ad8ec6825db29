import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { readVectors } from '../../../test/helpers/vectors.ts';
import { compactSdJwt, type DisclosableClaim, discloseClaims, sdDigest } from './disclose.ts';

/** RFC 9901 example values (vendored in test/fixtures/vectors, loaded, never copied here). */
const VECTORS = readVectors<{ disclosureDigests: Array<{ disclosure: unknown[]; encoded: string; digest: string }> }>(
  'sd-jwt.json',
);

/** RFC 9901 §4.2.3, computed here independently of src: SHA-256 over the ASCII of the encoded disclosure. */
const digestOf = (encoded: string) => createHash('sha256').update(Buffer.from(encoded, 'ascii')).digest('base64url');
const decode = (encoded: string) => JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as unknown[];
const B64URL_SHA256 = /^[A-Za-z0-9_-]{43}$/;

/** Deterministic randomness: every call returns fresh, distinct bytes. */
function counterRandom() {
  let n = 0;
  return (size: number) => {
    n++;
    const out = new Uint8Array(size);
    for (let i = 0; i < size; i++) out[i] = (n * 31 + i * 7) & 0xff;
    out[0] = n & 0xff;
    out[1] = (n >> 8) & 0xff;
    return out;
  };
}

const claims: DisclosableClaim[] = [
  { name: 'holder_name', value: 'Ada Lovelace', elementsDisclosable: false },
  { name: 'fare', value: -450, elementsDisclosable: false },
  { name: 'zones', value: ['A', 'B', 'C'], elementsDisclosable: true },
  { name: 'trips', value: [{ from: 'Ghent', to: 'Bruges' }, { from: 'Bruges' }], elementsDisclosable: true },
  { name: 'tags', value: ['x', 'y'], elementsDisclosable: false },
  { name: 'student', value: false, elementsDisclosable: false },
];

test('sdDigest reproduces the RFC 9901 disclosure digests', () => {
  assert.ok(VECTORS.disclosureDigests.length >= 2, 'the vector file holds digest examples');
  for (const v of VECTORS.disclosureDigests) {
    assert.equal(sdDigest(v.encoded), v.digest, v.encoded);
    assert.deepEqual(decode(v.encoded), v.disclosure, 'the vector is self-consistent');
  }
});

test('a disclosure carries the salt drawn from the given randomness (RFC 9901 example salts)', () => {
  const [claimVector, elementVector] = VECTORS.disclosureDigests;
  assert.ok(claimVector && elementVector);
  assert.equal(claimVector.disclosure.length, 3, 'an object-property disclosure');
  assert.equal(elementVector.disclosure.length, 2, 'an array-element disclosure');
  const [claimSalt, name, value] = claimVector.disclosure as [string, string, unknown];
  const salts = [claimSalt];
  const random = (size: number) => {
    const salt = salts.shift();
    assert.ok(salt, 'one salt per disclosure');
    assert.equal(size, 16, 'salts are drawn as 128 bits');
    // The RFC's example salts are 16 and 17 bytes; either is handed back as drawn.
    const bytes = Buffer.from(salt, 'base64url');
    assert.equal(bytes.toString('base64url'), salt);
    return new Uint8Array(bytes);
  };
  const out = discloseClaims([{ name, value, elementsDisclosable: false }], random, 0);
  assert.equal(out.disclosures.length, 1);
  const disclosure = out.disclosures[0] ?? '';
  assert.deepEqual(decode(disclosure), claimVector.disclosure);
  assert.deepEqual(out.sd, [digestOf(disclosure)]);

  // The array-element form, [salt, value], with the element vector's salt.
  const [elementSalt, element] = elementVector.disclosure as [string, unknown];
  salts.push(elementSalt, claimSalt);
  const arr = discloseClaims([{ name: 'nationalities', value: [element], elementsDisclosable: true }], random, 0);
  const decoded = arr.disclosures.map(decode);
  const elementDisclosure = arr.disclosures[decoded.findIndex((d) => d.length === 2)] ?? '';
  assert.deepEqual(decode(elementDisclosure), elementVector.disclosure);
  const claimDisclosure = decoded.find((d) => d.length === 3);
  assert.deepEqual(claimDisclosure, [claimSalt, 'nationalities', [{ '...': digestOf(elementDisclosure) }]]);
});

test('one disclosure per claim and one per element of an element-disclosable array', () => {
  const out = discloseClaims(claims, counterRandom(), 0);
  const elements = 3 + 2; // zones and trips; tags is disclosed whole
  assert.equal(out.disclosures.length, claims.length + elements);
  assert.equal(out.sd.length, claims.length, 'no decoys asked for: one top-level digest per claim');

  const decoded = out.disclosures.map((d) => ({ encoded: d, parts: decode(d) }));
  const byName = new Map(decoded.filter((d) => d.parts.length === 3).map((d) => [d.parts[1] as string, d]));
  const elementByDigest = new Map(decoded.filter((d) => d.parts.length === 2).map((d) => [digestOf(d.encoded), d]));
  assert.equal(byName.size, claims.length);
  assert.equal(elementByDigest.size, elements);

  // The top-level _sd holds exactly the digests of the claim disclosures; elements are not in it.
  assert.deepEqual([...out.sd].sort(), [...byName.values()].map((d) => digestOf(d.encoded)).sort());
  for (const digest of elementByDigest.keys()) assert.ok(!out.sd.includes(digest));

  for (const claim of claims) {
    const disclosed = byName.get(claim.name);
    assert.ok(disclosed, claim.name);
    const value = disclosed.parts[2];
    if (!claim.elementsDisclosable) {
      assert.deepEqual(value, claim.value, `${claim.name} is disclosed as is`);
      continue;
    }
    // RFC 9901 §4.2.4.2: each element is replaced by {"...": digest} in its place and order.
    assert.ok(Array.isArray(value) && Array.isArray(claim.value));
    assert.equal(value.length, claim.value.length);
    for (const [i, placeholder] of value.entries()) {
      assert.deepEqual(Object.keys(placeholder as object), ['...'], `${claim.name}[${i}]`);
      const digest = (placeholder as { '...': string })['...'];
      assert.match(digest, B64URL_SHA256);
      const element = elementByDigest.get(digest);
      assert.ok(element, `${claim.name}[${i}] has its disclosure`);
      assert.deepEqual(element.parts[1], claim.value[i], `${claim.name}[${i}] discloses the element itself`);
    }
  }

  // Every disclosure has its own 128-bit base64url salt.
  const salts = decoded.map((d) => d.parts[0] as string);
  assert.equal(new Set(salts).size, salts.length, 'salts are never reused');
  for (const salt of salts) {
    assert.match(salt, /^[A-Za-z0-9_-]+$/);
    assert.equal(Buffer.from(salt, 'base64url').length, 16, salt);
  }
});

test('the top-level digests are sorted, so claim order cannot be read from them', () => {
  const many: DisclosableClaim[] = Array.from({ length: 30 }, (_, i) => ({
    name: `c${i}`,
    value: i,
    elementsDisclosable: false,
  }));
  for (let run = 0; run < 5; run++) {
    const out = discloseClaims(many, (n) => new Uint8Array(randomBytes(n)), 4);
    assert.deepEqual(out.sd, [...out.sd].sort());
  }
});

test('decoys add digests without disclosures', () => {
  const plain = discloseClaims(claims, counterRandom(), 0);
  for (const decoys of [1, 3, 10]) {
    const out = discloseClaims(claims, counterRandom(), decoys);
    assert.equal(out.sd.length, claims.length + decoys);
    assert.deepEqual(out.disclosures, plain.disclosures, 'the disclosures are the same with or without decoys');
    const real = new Set(out.disclosures.map(digestOf));
    const extra = out.sd.filter((d) => !real.has(d));
    assert.equal(extra.length, decoys, 'each decoy is a digest no disclosure answers');
    assert.equal(new Set(out.sd).size, out.sd.length, 'decoys are distinct');
    for (const d of out.sd) assert.match(d, B64URL_SHA256, 'a decoy looks like any digest');
    assert.deepEqual(out.sd, [...out.sd].sort(), 'decoys are sorted in among the real digests');
  }
  assert.deepEqual(discloseClaims([], counterRandom(), 2).disclosures, []);
  assert.equal(discloseClaims([], counterRandom(), 2).sd.length, 2);
});

test('salts are fresh: two runs over the same claims differ everywhere', () => {
  const random = (n: number) => new Uint8Array(randomBytes(n));
  const a = discloseClaims(claims, random, 2);
  const b = discloseClaims(claims, random, 2);
  assert.equal(a.disclosures.length, b.disclosures.length);
  for (const d of a.disclosures) assert.ok(!b.disclosures.includes(d), 'no disclosure repeats');
  for (const d of a.sd) assert.ok(!b.sd.includes(d), 'no digest repeats');
  const saltsA = a.disclosures.map((d) => decode(d)[0]);
  const saltsB = b.disclosures.map((d) => decode(d)[0]);
  for (const s of saltsA) assert.ok(!saltsB.includes(s));
});

test('the compact form joins JWT and disclosures with "~" and ends with "~"', () => {
  const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln';
  assert.equal(compactSdJwt(jwt, []), `${jwt}~`);
  assert.equal(compactSdJwt(jwt, ['d1', 'd2']), `${jwt}~d1~d2~`);
  const out = discloseClaims(claims, counterRandom(), 1);
  const compact = compactSdJwt(jwt, out.disclosures);
  assert.ok(compact.endsWith('~'));
  assert.deepEqual(compact.split('~'), [jwt, ...out.disclosures, '']);
});
